import { BotSlots } from './bot-slots';

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
