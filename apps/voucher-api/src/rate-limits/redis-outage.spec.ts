import { loadConfig } from '@app/platform';
import Redis from 'ioredis';
import { VoucherConfig } from '../config/voucher.config';
import { GuessingLimiter } from './guessing-limiter';
import { RateLimiters } from './rate-limiters';

describe('rate limits while Redis is unreachable', () => {
  // A real client aimed at a closed port: every command fails at once instead of queueing.
  const redis = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  const config = loadConfig(VoucherConfig, {});

  afterAll(() => redis.disconnect());

  it('lets the call through without a count instead of failing it', async () => {
    const limiters = new RateLimiters(redis, config);
    await expect(limiters.consume('redeem', 'token-1')).resolves.toBeNull();
  });

  it('neither locks a token out nor throws when counting a failed look-up', async () => {
    const guessing = new GuessingLimiter(redis, config);
    await expect(guessing.recordFailure('token-1')).resolves.toBeUndefined();
    await expect(guessing.assertNotLocked('token-1')).resolves.toBeUndefined();
  });
});
