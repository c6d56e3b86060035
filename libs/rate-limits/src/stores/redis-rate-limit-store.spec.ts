import Redis from 'ioredis';
import { deleteRedisKeys, testBackends, testRedisPrefix, waitUntil } from '@app/testing';
import { WindowedRateLimiters } from '../windowed-rate-limiters';
import { RedisRateLimitStore } from './redis-rate-limit-store';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const onRedis = testBackends().includes('redis') ? describe : describe.skip;

onRedis('RedisRateLimitStore', () => {
  const prefix = testRedisPrefix();
  let client: Redis;
  // monitor() opens a connection of its own beside the one it is called on; both are closed after.
  let monitorOrigin: Redis;
  let monitor: Redis;
  const seen: string[][] = [];

  beforeAll(async () => {
    client = new Redis(REDIS_URL, { keyPrefix: prefix, enableAutoPipelining: true });
    monitorOrigin = new Redis(REDIS_URL);
    monitor = await monitorOrigin.monitor();
    // What the client sent: the commands a script runs inside Redis come from the source "lua".
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(prefix))) seen.push(args);
    });
  });

  afterAll(async () => {
    monitor.disconnect();
    monitorOrigin.disconnect();
    client.disconnect();
    await deleteRedisKeys(REDIS_URL, prefix);
  });

  it('counts, reads and penalises a counter with one script call each, never a MULTI of plain commands', async () => {
    const limiters = new WindowedRateLimiters({
      store: new RedisRateLimitStore(client),
      limits: { verify: 3, failures: 5 },
      keyPrefix: 'rl',
    });

    const [outcome, failures] = await limiters.consumeAndPeek('verify', 'token-a', limiters, 'failures');
    await limiters.penalty('failures', 'token-a', 2);
    const afterPenalty = await limiters.peek('failures', 'token-a');

    expect(outcome).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(failures).toBeNull();
    expect(afterPenalty?.consumedPoints).toBe(2);
    expect(afterPenalty?.msBeforeNext).toBeGreaterThan(50_000);
    await waitUntil(() => seen.length >= 4, 'the four calls to reach the monitor');
    // EVAL the first time a script runs on this server, EVALSHA after; never GET or PTTL from the client.
    expect(seen.map(([command]) => command.toLowerCase().replace('evalsha', 'eval'))).toEqual([
      'eval',
      'eval',
      'eval',
      'eval',
    ]);
  });
});
