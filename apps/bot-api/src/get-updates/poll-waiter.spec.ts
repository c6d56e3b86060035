import { PollWaiter } from './poll-waiter';

describe('PollWaiter', () => {
  it('returns at once when woken during the database read that preceded the wait', async () => {
    const waiter = new PollWaiter('b');
    waiter.arm();
    waiter.wake();
    const started = Date.now();
    await waiter.wait(5000);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('ends a wait early on wake and otherwise after the timeout', async () => {
    const waiter = new PollWaiter('b');
    waiter.arm();
    const started = Date.now();
    setTimeout(() => waiter.wake(), 20);
    await waiter.wait(5000);
    expect(Date.now() - started).toBeLessThan(500);
    waiter.arm();
    const second = Date.now();
    await waiter.wait(60);
    expect(Date.now() - second).toBeGreaterThanOrEqual(55);
  });

  it('marks a superseded poll and wakes it', async () => {
    const waiter = new PollWaiter('b');
    waiter.arm();
    setTimeout(() => waiter.supersede(), 10);
    await waiter.wait(5000);
    expect(waiter.superseded).toBe(true);
  });

  it('orders polls by start time, then by id', () => {
    const waiter = new PollWaiter('b');
    expect(waiter.isOlderThan(waiter.startedAt + 1, '0')).toBe(true);
    expect(waiter.isOlderThan(waiter.startedAt - 1, 'z')).toBe(false);
    expect(waiter.isOlderThan(waiter.startedAt, waiter.id)).toBe(false);
  });
});
