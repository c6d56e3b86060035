import { IdleEvictingMap } from './idle-evicting-map';

describe('IdleEvictingMap', () => {
  // lru-cache reads a start time of 0 as "never expires"; a real clock is never there.
  const origin = Date.parse('2026-01-01T00:00:00Z');
  let clock = origin;
  const map = () => new IdleEvictingMap<string, string>({ maxEntries: 3, idleMs: 1000 }, () => clock);

  beforeEach(() => {
    clock = origin;
  });

  it('builds a value once and returns the same one while it is used', () => {
    const entries = map();
    const create = jest.fn(() => 'limiter');
    entries.getOrCreate('a', create);
    entries.getOrCreate('a', create);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('never holds more than its bound, dropping the least recently used first', () => {
    const entries = map();
    for (const key of ['a', 'b', 'c']) entries.getOrCreate(key, () => key);
    entries.getOrCreate('a', () => 'again');
    entries.getOrCreate('d', () => 'd');
    expect(entries.size).toBe(3);
    expect(entries.getOrCreate('a', () => 'rebuilt')).toBe('a');
    expect(entries.getOrCreate('b', () => 'rebuilt')).toBe('rebuilt');
  });

  it('forgets entries idle for longer than the idle period', () => {
    const entries = map();
    entries.getOrCreate('old', () => 'old');
    clock = origin + 600;
    entries.getOrCreate('recent', () => 'recent');
    clock = origin + 1200;
    entries.getOrCreate('new', () => 'new');
    expect(entries.size).toBe(2);
    expect(entries.getOrCreate('old', () => 'rebuilt')).toBe('rebuilt');
  });
});
