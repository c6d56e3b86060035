import { testRateLimitStores } from '@app/testing';
import type { Pool } from 'pg';
import { WindowedRateLimiters } from '../windowed-rate-limiters';
import type { PostgresRateLimitStore } from './postgres-rate-limit-store';

/** The batching of the PostgreSQL store: what the calls of one tick cost, and that each stays exact. */
describe('PostgreSQL rate-limit store: the calls of one tick in one statement', () => {
  const stores = testRateLimitStores('postgres');
  afterAll(() => stores.close());

  /** A replica and the statements its pool is asked to run (the pool still runs them). */
  const replica = async () => {
    const store = (await stores.replica()) as PostgresRateLimitStore;
    const pool = (store as unknown as { pool: Pool }).pool;
    const statements = jest.spyOn(pool, 'query');
    return { store, statements };
  };

  it("counts a send's three windows in one statement, each window exactly", async () => {
    const { store, statements } = await replica();
    const windows = [
      new WindowedRateLimiters({ store, limits: { send: 3 }, keyPrefix: 'short', windowSeconds: 30 }),
      new WindowedRateLimiters({ store, limits: { send: 5 }, keyPrefix: 'min', windowSeconds: 60 }),
      new WindowedRateLimiters({ store, limits: { send: 9 }, keyPrefix: 'day', windowSeconds: 86400 }),
    ];
    const first = await Promise.all(windows.map((window) => window.consume('send', 'bot-1')));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(first.map((outcome) => outcome.remaining)).toEqual([2, 4, 8]);

    const second = await Promise.all(windows.map((window) => window.consume('send', 'bot-1', 2)));
    expect(statements).toHaveBeenCalledTimes(2);
    expect(second.map((outcome) => [outcome.allowed, outcome.remaining])).toEqual([
      [true, 0],
      [true, 2],
      [true, 6],
    ]);
    const third = await Promise.all(windows.map((window) => window.consume('send', 'bot-1')));
    expect(third.map((outcome) => outcome.allowed)).toEqual([false, true, true]);
    expect(third[0].retryAfterSeconds).toBeLessThanOrEqual(30);
    expect(third[2].resetAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(86000);
  });

  it('counts a request and reads its lock-out counter in one statement', async () => {
    const { store, statements } = await replica();
    const requests = new WindowedRateLimiters({ store, limits: { verify: 4 }, keyPrefix: 'rl' });
    const failures = new WindowedRateLimiters({
      store,
      limits: { failures: 5 },
      keyPrefix: 'guess',
      windowSeconds: 900,
    });
    await failures.penalty('failures', 'token-1', 2);
    statements.mockClear();

    const [outcome, state] = await requests.consumeAndPeek('verify', 'token-1', failures, 'failures');
    expect(statements).toHaveBeenCalledTimes(1);
    expect(outcome).toMatchObject({ allowed: true, remaining: 3 });
    expect(state?.consumedPoints).toBe(2);
    expect(state?.msBeforeNext).toBeGreaterThan(800_000);
  });

  it('gives each of several counts of one key in one tick the counter as it stood after its own points', async () => {
    const { store, statements } = await replica();
    const limiters = new WindowedRateLimiters({ store, limits: { burst: 3 }, keyPrefix: 'rl' });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => limiters.consume('burst', 'same')));
    expect(statements).toHaveBeenCalledTimes(1);
    expect(outcomes.map((outcome) => [outcome.allowed, outcome.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
  });

  it('never lets concurrent requests of three replicas past a limit, across ticks and keys', async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    const limiters = replicas.map(
      ({ store }) => new WindowedRateLimiters({ store, limits: { a: 11, b: 7 }, keyPrefix: 'race' }),
    );
    // 120 calls from three pools at once, spread over several ticks so batches of different replicas
    // interleave on the server, each batch counting both keys.
    const calls = Array.from({ length: 120 }, async (_, call) => {
      if (call % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
      return limiters[call % 3].consume(call % 2 ? 'a' : 'b', 'shared');
    });
    const outcomes = await Promise.all(calls);
    const allowed = (odd: number) => outcomes.filter((outcome, call) => call % 2 === odd && outcome.allowed);
    expect(allowed(1)).toHaveLength(11);
    expect(allowed(0)).toHaveLength(7);
    expect(replicas.reduce((sum, { statements }) => sum + statements.mock.calls.length, 0)).toBeLessThan(120);
  });
});
