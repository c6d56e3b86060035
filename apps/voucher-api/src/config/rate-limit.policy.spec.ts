import { DEFAULT_RATE_LIMITS, resolveRateLimits } from './rate-limit.policy';

describe('resolveRateLimits', () => {
  it('keeps the per-minute defaults of the spec when nothing is overridden', () => {
    expect(resolveRateLimits('')).toEqual(DEFAULT_RATE_LIMITS);
    expect(resolveRateLimits('').redeem).toBe(20);
    expect(resolveRateLimits('').issue).toBe(30);
  });

  it('overrides only the named endpoints', () => {
    const limits = resolveRateLimits('redeem=1000, issue=5');
    expect(limits.redeem).toBe(1000);
    expect(limits.issue).toBe(5);
    expect(limits.verify).toBe(30);
  });

  it('refuses unknown endpoint names and non-positive limits', () => {
    expect(() => resolveRateLimits('redem=10')).toThrow('unknown rate-limited endpoint "redem"');
    expect(() => resolveRateLimits('redeem=0')).toThrow('positive integer');
  });
});
