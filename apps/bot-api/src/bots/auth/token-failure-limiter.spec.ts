import { ApiError } from '@app/envelope';
import { loadConfig } from '@app/platform';
import { defaultTestBackend, testRateLimitStores, TestRateLimitStores } from '@app/testing';
import { BotConfig } from '../../config/bot.config';
import { TokenFailureLimiter } from './token-failure-limiter';

describe('TokenFailureLimiter', () => {
  let stores: TestRateLimitStores;
  let limiter: TokenFailureLimiter;
  beforeAll(async () => {
    stores = testRateLimitStores(defaultTestBackend());
    limiter = new TokenFailureLimiter(
      await stores.replica(),
      loadConfig(BotConfig, { NODE_ENV: 'test', BOT_TOKEN_FAILURES_PER_MINUTE: '2' }),
    );
  });
  afterAll(() => stores.close());

  const refusal = (address: string) => limiter.recordFailure(address).then(() => undefined, (error: ApiError) => error);

  it('lets an address send as many unknown tokens as the limit, and refuses the next with 429 and Retry-After', async () => {
    await limiter.recordFailure('203.0.113.1');
    await limiter.recordFailure('203.0.113.1');
    const refused = await refusal('203.0.113.1');
    expect(refused).toBeInstanceOf(ApiError);
    expect([refused?.status, refused?.code, refused?.message]).toEqual([
      429,
      'RATE_LIMITED',
      'Too many unknown bot tokens from this address; retry later',
    ]);
    const retryAfter = Number(refused?.headers?.['Retry-After']);
    // The minute began with this test's first failure, a few seconds ago at most.
    expect(retryAfter).toBeGreaterThanOrEqual(30);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('keeps refusing the address for the rest of its window, with a Retry-After that does not grow', async () => {
    const first = Number((await refusal('203.0.113.1'))?.headers?.['Retry-After']);
    const again = await refusal('203.0.113.1');
    expect(again?.status).toBe(429);
    expect(Number(again?.headers?.['Retry-After'])).toBeLessThanOrEqual(first);
  });

  it('counts each address on its own', async () => {
    await expect(limiter.recordFailure('203.0.113.2')).resolves.toBeUndefined();
    await expect(limiter.recordFailure('203.0.113.2')).resolves.toBeUndefined();
  });
});
