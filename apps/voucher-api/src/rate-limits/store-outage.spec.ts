import { loadConfig } from '@app/platform';
import { describeEachBackend, testRateLimitStores } from '@app/testing';
import { VoucherConfig } from '../config/voucher.config';
import { GuessingLimiter } from './guessing-limiter';
import { RateLimiters } from './rate-limiters';

describeEachBackend('rate limits while the rate-limit store is unreachable', (backend) => {
  // A real store aimed at a closed port: every call fails at once.
  const stores = testRateLimitStores(backend);
  const store = stores.unreachable();
  const config = loadConfig(VoucherConfig, { RATE_LIMITS: 'redeem=3', GUESS_LIMIT: '2' });

  afterAll(() => stores.close());

  it('defect 2: keeps refusing a token past its limit, counting in memory, instead of letting every call through', async () => {
    const limiters = new RateLimiters(store, config);
    const allowed = [];
    for (let call = 0; call < 5; call++) allowed.push((await limiters.consume('redeem', 'token-1')).allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
    expect((await limiters.consume('redeem', 'token-2')).allowed).toBe(true);
  });

  it('defect 2: locks a guessing token out after the threshold of failed look-ups, counting in memory', async () => {
    const guessing = new GuessingLimiter(store, config);
    await guessing.recordFailure('token-1');
    await expect(guessing.assertNotLocked('token-1')).resolves.toBeUndefined();
    await guessing.recordFailure('token-1');
    await expect(guessing.assertNotLocked('token-1')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(guessing.assertNotLocked('token-2')).resolves.toBeUndefined();
  });

  it("defect 2: the guard's one-call check still counts the call and reports the lock-out in memory", async () => {
    const limiters = new RateLimiters(store, config);
    const guessing = new GuessingLimiter(store, config);
    await guessing.recordFailure('token-3');
    await guessing.recordFailure('token-3');
    const [outcome, lockout] = await guessing.consumeChecking(limiters.limiters, 'redeem', 'token-3');
    expect(outcome).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(lockout).toMatchObject({ code: 'RATE_LIMITED' });
    const [, clear] = await guessing.consumeChecking(limiters.limiters, 'redeem', 'token-4');
    expect(clear).toBeUndefined();
  });
});
