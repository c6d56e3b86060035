import { retryDelayOf } from './delivery.processor';
import { retryAfterMsOf } from './webhook-sender';

describe('Retry-After', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and HTTP dates as milliseconds from now', () => {
    expect(retryAfterMsOf('120', now)).toBe(120_000);
    expect(retryAfterMsOf(' 0 ', now)).toBe(0);
    expect(retryAfterMsOf('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMsOf(['5', '9'], now)).toBe(5000);
  });

  it('treats a date in the past as no wait, and anything unreadable as absent', () => {
    expect(retryAfterMsOf('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    for (const header of [undefined, '', '-5', '1.5', 'soon', '2026-01-01T00:01:00Z', '99999999999']) {
      expect(retryAfterMsOf(header, now)).toBeNull();
    }
  });

  it('never schedules a retry earlier than the published schedule', () => {
    expect(retryDelayOf(60_000, 5_000)).toBe(60_000);
    expect(retryDelayOf(60_000, 600_000)).toBe(600_000);
    expect(retryDelayOf(60_000, undefined)).toBe(60_000);
  });
});
