import { DeferralPacer } from './deferral-pacer';

const pacer = () => new DeferralPacer({ minDelayMs: 50, maxDelayMs: 6000, initialHoldMs: 250 });

describe('DeferralPacer', () => {
  it('books the deferred jobs of a full bot one behind the other, at the rate its slots free up', () => {
    const p = pacer();
    p.delayFor('hanging', 40, 0, 0);
    // Its POSTs are seen to hold their slot for the 3 s timeout.
    for (let i = 0; i < 40; i++) p.observeHold('hanging', 3000);
    const delays = Array.from({ length: 20 }, () => p.delayFor('hanging', 40, 1000, 0));
    const gaps = delays.slice(1).map((delay, i) => delay - delays[i]);
    // 40 slots each held about 3 s: one freed slot every ~75 ms, so one job back every ~75 ms.
    for (const gap of gaps) expect(gap).toBeGreaterThan(60);
    for (const gap of gaps) expect(gap).toBeLessThan(80);
  });

  it('brings back a long backlog within the horizon, spread over its second half', () => {
    const p = pacer();
    const delays = Array.from({ length: 1000 }, (_, i) => p.delayFor('hanging', 1, 0, (i % 10) / 10));
    expect(Math.max(...delays)).toBeLessThanOrEqual(6000);
    const late = delays.slice(100);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(3000);
    expect(new Set(late).size).toBeGreaterThan(5);
  });

  it('knows a hold time only once a POST of the bot ended, the first one replacing the assumption', () => {
    const p = pacer();
    p.delayFor('new', 5, 0, 0);
    expect(p.observedHoldOf('new')).toBeUndefined();
    p.observeHold('new', 3000);
    expect(p.observedHoldOf('new')).toBe(3000);
    p.observeHold('new', 1000);
    expect(p.observedHoldOf('new')).toBe(2600);
    p.observeHold('fresh', 12);
    expect(p.observedHoldOf('fresh')).toBe(12);
  });

  it('paces each bot on its own, and never answers less than the minimum', () => {
    const p = pacer();
    for (let i = 0; i < 100; i++) p.delayFor('slow', 1, 0, 0);
    expect(p.delayFor('fast', 5, 0, 0)).toBe(100);
    for (let i = 0; i < 10; i++) p.observeHold('fast', 1);
    const delay = p.delayFor('fast', 5, 10_000, 0);
    expect(delay).toBeGreaterThanOrEqual(50);
    expect(delay).toBeLessThan(60);
  });
});
