import type { CoordinationBackend } from '@app/platform';
import { describeEachBackend, testRateLimitStores, waitUntil } from '@app/testing';
import { WindowedRateLimiters } from '../windowed-rate-limiters';
import type { RateLimitStore } from './rate-limit-store';

/** The same cases against every store: what the limits of both services rely on. */
describeEachBackend('RateLimitStore contract', (backend: CoordinationBackend) => {
  const stores = testRateLimitStores(backend);
  const openStore = (reachable = true) => (reachable ? stores.replica() : Promise.resolve(stores.unreachable()));

  const limiters = (store: RateLimitStore, limits: Record<string, number>, windowSeconds?: number) =>
    new WindowedRateLimiters({ store, limits, keyPrefix: 'rl', windowSeconds });

  afterAll(() => stores.close());

  it('counts per endpoint and subject, shared by two replicas, and refuses past the limit', async () => {
    const [one, two] = [
      limiters(await openStore(), { send: 2, read: 5 }),
      limiters(await openStore(), { send: 2, read: 5 }),
    ];
    expect((await one.consume('send', 'a')).remaining).toBe(1);
    expect((await two.consume('send', 'a')).allowed).toBe(true);
    const refused = await one.consume('send', 'a');
    expect(refused).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await two.consume('send', 'b')).allowed).toBe(true);
    expect((await two.consume('read', 'a')).remaining).toBe(4);
  });

  it('counts concurrent calls exactly: of 20 parallel calls against a limit of 7, 7 pass', async () => {
    const [one, two] = [limiters(await openStore(), { burst: 7 }), limiters(await openStore(), { burst: 7 })];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, call) => (call % 2 ? one : two).consume('burst', 'parallel')),
    );
    expect(outcomes.filter((outcome) => outcome.allowed)).toHaveLength(7);
  });

  it('opens a new window once the old one ends', async () => {
    const short = limiters(await openStore(), { tick: 1 }, 1);
    expect((await short.consume('tick', 'w')).allowed).toBe(true);
    const refused = await short.consume('tick', 'w');
    expect(refused.allowed).toBe(false);
    await waitUntil(async () => (await short.peek('tick', 'w')) === null, 'the window ends');
    expect(await short.consume('tick', 'w')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('adds penalty points without asking, and peek reads them without counting', async () => {
    const failures = limiters(await openStore(), { failures: 5 }, 900);
    expect(await failures.peek('failures', 'p')).toBeNull();
    await failures.penalty('failures', 'p', 3);
    const state = await failures.peek('failures', 'p');
    expect(state?.consumedPoints).toBe(3);
    expect(state?.msBeforeNext).toBeGreaterThan(60_000);
    expect(state?.msBeforeNext).toBeLessThanOrEqual(900_000);
    expect((await failures.peek('failures', 'p'))?.consumedPoints).toBe(3);
  });

  it('consumeAndPeek counts one counter and reads another in one call', async () => {
    const store = await openStore();
    const requests = limiters(store, { redeem: 2 });
    const failures = new WindowedRateLimiters({
      store,
      limits: { failures: 5 },
      keyPrefix: 'guess',
      windowSeconds: 900,
    });
    const [first, none] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(first).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(none).toBeNull();
    await failures.penalty('failures', 'c', 2);
    const [second, state] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(second).toMatchObject({ allowed: true, remaining: 0 });
    expect(state?.consumedPoints).toBe(2);
    const [refused] = await requests.consumeAndPeek('redeem', 'c', failures, 'failures');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
  });

  it('keeps limiting in memory while the store is unreachable instead of letting every call through', async () => {
    const down = await openStore(false);
    const requests = limiters(down, { redeem: 3 });
    const outcomes = [];
    for (let call = 0; call < 5; call++) outcomes.push((await requests.consume('redeem', 'token-1')).allowed);
    expect(outcomes).toEqual([true, true, true, false, false]);
    expect((await requests.consume('redeem', 'token-2')).allowed).toBe(true);

    const failures = limiters(down, { failures: 5 }, 900);
    await failures.penalty('failures', 'token-1', 2);
    expect((await failures.peek('failures', 'token-1'))?.consumedPoints).toBe(2);
    const [, state] = await requests.consumeAndPeek('redeem', 'token-3', failures, 'failures');
    expect(state).toBeNull();
  });
});
