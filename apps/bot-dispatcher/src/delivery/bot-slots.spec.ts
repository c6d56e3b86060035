import { BotSlots, fairShareOf, replicaSlots } from './bot-slots';

describe('BotSlots', () => {
  it('grants at most `limit` concurrent slots per bot and frees them on release', () => {
    const slots = new BotSlots();
    expect(slots.tryAcquire('a', 2)).toBe(true);
    expect(slots.tryAcquire('a', 2)).toBe(true);
    expect(slots.tryAcquire('a', 2)).toBe(false);
    expect(slots.tryAcquire('b', 2)).toBe(true);
    slots.release('a');
    expect(slots.inFlight('a')).toBe(1);
    expect(slots.tryAcquire('a', 2)).toBe(true);
  });

  it('forgets a bot once its last slot is released', () => {
    const slots = new BotSlots();
    slots.tryAcquire('a', 1);
    slots.release('a');
    slots.release('a');
    expect(slots.inFlight('a')).toBe(0);
    expect(slots.tryAcquire('a', 1)).toBe(true);
  });
});

describe('BotSlots fair share (security defect 1)', () => {
  it("caps a bot at the replica's fair share when it may not borrow", () => {
    const slots = new BotSlots(fairShareOf(50, 10), 50, 45);
    for (let i = 0; i < 5; i++) expect(slots.tryAcquire('flooding', 100)).toBe(true);
    expect(slots.tryAcquire('flooding', 100)).toBe(false);
    expect(slots.tryAcquire('other', 40)).toBe(true);
    expect([...slots.entries()]).toEqual([
      ['flooding', 5],
      ['other', 1],
    ]);
  });

  it('keeps max_connections as the limit when it is below the fair share', () => {
    const slots = new BotSlots(5);
    expect(slots.tryAcquire('a', 2)).toBe(true);
    expect(slots.tryAcquire('a', 2)).toBe(true);
    expect(slots.tryAcquire('a', 2)).toBe(false);
  });

  it('gives every bot at least one slot however small the concurrency', () => {
    expect(fairShareOf(1, 10)).toBe(1);
    expect(fairShareOf(50, 10)).toBe(5);
    expect(fairShareOf(200, 10)).toBe(20);
  });
});

describe('BotSlots borrowing beyond the fair share', () => {
  it('lets a lone bot use idle slots up to its max_connections, leaving the reserve free', () => {
    const slots = replicaSlots(50, 10);
    let granted = 0;
    while (slots.tryAcquire('draining', 100)) granted++;
    expect(granted).toBe(40);
    expect(slots.tryAcquire('draining', 100)).toBe(false);
  });

  it('always gives another bot its fair share out of the reserve while one bot borrows', () => {
    const slots = replicaSlots(50, 10);
    while (slots.tryAcquire('hanging', 100)) {
      // take everything borrowing allows
    }
    for (let i = 0; i < 5; i++) expect(slots.tryAcquire('other', 40)).toBe(true);
    expect(slots.tryAcquire('other', 40)).toBe(false);
    slots.release('hanging');
    expect(slots.tryAcquire('hanging', 100)).toBe(false);
  });

  it('keeps a bot whose receiver is slow to its fair share, however many slots are idle', () => {
    const slots = replicaSlots(50, 10);
    for (let i = 0; i < 5; i++) expect(slots.tryAcquire('hanging', 100, false)).toBe(true);
    expect(slots.canAcquire('hanging', 100, false)).toBe(false);
    expect(slots.tryAcquire('hanging', 100, false)).toBe(false);
    expect(slots.inFlight('hanging')).toBe(5);
    // Once it answers promptly again it borrows like any other bot.
    expect(slots.tryAcquire('hanging', 100, true)).toBe(true);
  });

  it('stops a bot at its max_connections even with idle slots', () => {
    const slots = replicaSlots(50, 10);
    for (let i = 0; i < 8; i++) expect(slots.tryAcquire('small', 8)).toBe(true);
    expect(slots.tryAcquire('small', 8)).toBe(false);
  });
});
