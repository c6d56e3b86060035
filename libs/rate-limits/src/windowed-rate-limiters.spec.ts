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
});
