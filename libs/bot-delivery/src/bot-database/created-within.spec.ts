import { createdWithin, EVERY_DAY } from './created-within';

describe('createdWithin', () => {
  it('spans the earliest to the latest creation time with a second on each side', () => {
    const range = createdWithin(['2026-11-28T10:00:05.250Z', '2026-11-28T09:59:59.000Z', '2026-11-28T10:00:01.000Z']);
    expect(range).toEqual({ since: '2026-11-28T09:59:58.000Z', until: '2026-11-28T10:00:06.250Z' });
  });

  it('holds a single delivery whose time PostgreSQL keeps to the microsecond', () => {
    // 12:00:00.000999 reads back as 12:00:00.000 in JavaScript: the range must still contain the row.
    const range = createdWithin(['2026-11-28T12:00:00.000Z']);
    expect(range.since < '2026-11-28T12:00:00.000999Z').toBe(true);
    expect(range.until > '2026-11-28T12:00:00.000999Z').toBe(true);
  });

  it('reads every day when one time is unknown, as a job of an older producer carries none', () => {
    expect(createdWithin(['2026-11-28T10:00:00Z', undefined])).toBe(EVERY_DAY);
    expect(createdWithin([undefined])).toBe(EVERY_DAY);
  });

  it('reads every day when a time does not parse', () => {
    expect(createdWithin(['2026-11-28T10:00:00Z', 'yesterday'])).toBe(EVERY_DAY);
  });

  it('reads every day for an empty batch', () => {
    expect(createdWithin([])).toBe(EVERY_DAY);
  });
});
