import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { WindowedRateLimiters } from './windowed-rate-limiters';

describe('WindowedRateLimiters', () => {
  const prefix = `test:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis('redis://127.0.0.1:6379', { keyPrefix: prefix });
  // A real client aimed at a closed port: every command fails at once instead of queueing.
  const down = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  beforeAll(() => redis.ping());
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys.map((key) => key.slice(prefix.length)));
    redis.disconnect();
    down.disconnect();
  });

  it('counts per endpoint and subject in Redis, shared by every instance, and refuses past the limit', async () => {
    const options = { redis, limits: { send: 2, read: 5 }, keyPrefix: 'rl', name: 'spec' };
    const [one, two] = [new WindowedRateLimiters(options), new WindowedRateLimiters(options)];
    expect((await one.consume('send', 'a')).remaining).toBe(1);
    expect((await two.consume('send', 'a')).allowed).toBe(true);
    const refused = await one.consume('send', 'a');
    expect(refused).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await one.consume('send', 'b')).allowed).toBe(true);
    expect((await one.consume('read', 'a')).remaining).toBe(4);
  });

  it('security defect 2: keeps limiting in memory while Redis is unreachable instead of letting every call through', async () => {
    const limiters = new WindowedRateLimiters({ redis: down, limits: { redeem: 3 }, keyPrefix: 'rl', name: 'spec' });
    const outcomes = [];
    for (let call = 0; call < 5; call++) outcomes.push((await limiters.consume('redeem', 'token-1')).allowed);
    expect(outcomes).toEqual([true, true, true, false, false]);
  });

  it('consumeAndPeek counts and reads the same counters as consume and peek, in one call', async () => {
    const requests = new WindowedRateLimiters({ redis, limits: { redeem: 2 }, keyPrefix: 'rl', name: 'spec' });
    const failures = new WindowedRateLimiters({
      redis,
      limits: { failures: 5 },
      keyPrefix: 'guess',
      name: 'spec',
      windowSeconds: 900,
    });
    const [first, none] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(first).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(none).toBeNull();

    await failures.penalty('failures', 'c', 3);
    const [second, state] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(second).toMatchObject({ allowed: true, remaining: 0 });
    expect(state?.consumedPoints).toBe(3);
    expect(state?.msBeforeNext).toBeGreaterThan(60_000);
    expect(state?.msBeforeNext).toBeLessThanOrEqual(900_000);

    const [refused] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await requests.consume('redeem', 'c')).allowed).toBe(false);
    expect((await requests.peek('redeem', 'c'))?.consumedPoints).toBe(4);
    expect(await redis.pttl('rl:redeem:c')).toBeLessThanOrEqual(60_000);
  });

  it('consumeAndPeek keeps counting in memory while Redis is unreachable', async () => {
    const requests = new WindowedRateLimiters({ redis: down, limits: { redeem: 2 }, keyPrefix: 'rl', name: 'spec' });
    const failures = new WindowedRateLimiters({ redis: down, limits: { failures: 5 }, keyPrefix: 'guess', name: 'spec' });
    await failures.penalty('failures', 'd', 2);
    const outcomes = [];
    for (let call = 0; call < 3; call++) {
      const [outcome, state] = await requests.consumeAndPeek('redeem', 'd', failures, 'failures');
      outcomes.push(outcome.allowed);
      expect(state?.consumedPoints).toBe(2);
    }
    expect(outcomes).toEqual([true, true, false]);
  });
});
