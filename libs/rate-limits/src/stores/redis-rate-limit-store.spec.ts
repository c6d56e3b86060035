import Redis, { Command } from 'ioredis';
import { deleteRedisKeys, testBackends, testRedisPrefix } from '@app/testing';
import { WindowedRateLimiters } from '../windowed-rate-limiters';
import { RedisRateLimitStore } from './redis-rate-limit-store';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const onRedis = testBackends().includes('redis') ? describe : describe.skip;

onRedis('RedisRateLimitStore', () => {
  const prefix = testRedisPrefix();
  let client: Redis;
  // The commands this client wrote, read at the client rather than through MONITOR: MONITOR carries
  // every parallel suite's traffic, and BullMQ's binary arguments there break ioredis's monitor parser.
  const sent: Command[] = [];

  beforeAll(() => {
    client = new Redis(REDIS_URL, { keyPrefix: prefix, enableAutoPipelining: true });
    const sendCommand = client.sendCommand.bind(client);
    // Pipelines, auto-pipelining and scripts all reach the socket through this one method.
    client.sendCommand = (command, stream) => {
      sent.push(command);
      return sendCommand(command, stream);
    };
  });

  afterAll(async () => {
    client.disconnect();
    await deleteRedisKeys(REDIS_URL, prefix);
  });

  it('counts, reads and penalises a counter with one script call each, never a MULTI of plain commands', async () => {
    const limiters = new WindowedRateLimiters({
      store: new RedisRateLimitStore(client),
      limits: { verify: 3, failures: 5 },
      keyPrefix: 'rl',
    });
    // The connection's own start-up commands (its ready check) are not the store's.
    await client.ping();
    sent.length = 0;

    const [outcome, failures] = await limiters.consumeAndPeek('verify', 'token-a', limiters, 'failures');
    await limiters.penalty('failures', 'token-a', 2);
    const afterPenalty = await limiters.peek('failures', 'token-a');

    expect(outcome).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(failures).toBeNull();
    expect(afterPenalty?.consumedPoints).toBe(2);
    expect(afterPenalty?.msBeforeNext).toBeGreaterThan(50_000);
    // EVAL the first time a script runs on this connection, EVALSHA after; never GET or PTTL.
    expect(sent.map((command) => command.name.replace('evalsha', 'eval'))).toEqual(['eval', 'eval', 'eval', 'eval']);
  });
});
