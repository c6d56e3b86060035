import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterRedis, type IRateLimiterRedisOptions } from 'rate-limiter-flexible';
import { InsuranceLimiter, OutageLog } from './insurance-limiter';
import type { FixedWindow, RateLimitStore } from './rate-limit-store';

/** A counter's points and milliseconds left, read in one script call (null points: no window open). */
const GET_WITH_TTL = `return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])}`;

type ScriptedRedis = Redis & {
  rlflxIncr(args: string[]): Promise<[number, number]>;
  rlflxGetWithTtl(key: string): Promise<[string | null, number]>;
};

/**
 * RateLimiterRedis with its two hot store calls made one command each. The library reads a counter
 * with MULTI, GET, PTTL and EXEC (four commands and a pipeline object per read) and builds a MULTI on
 * every count even when it then runs its script; on a verify or a redeem that was a tenth of the
 * process's CPU. `_get` and `_upsert` are the hooks every store of the library implements for
 * RateLimiterStoreAbstract (internal, so the spec beside this file and the store contract guard an
 * upgrade), and their answers keep the shape its `_getRateLimiterRes` reads; anything but a plain
 * windowed count (forced expiry, windows shorter than a second) still takes the library's own path.
 */
class ScriptedRateLimiterRedis extends RateLimiterRedis {
  private readonly redis: ScriptedRedis;

  constructor(options: IRateLimiterRedisOptions & { storeClient: Redis }) {
    super(options);
    this.redis = options.storeClient as ScriptedRedis;
    if (typeof this.redis.rlflxGetWithTtl !== 'function')
      this.redis.defineCommand('rlflxGetWithTtl', { numberOfKeys: 1, lua: GET_WITH_TTL });
  }

  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    const seconds = Math.floor(msDuration / 1000);
    if (forceExpire || seconds <= 0 || !Number.isInteger(points) || !this.ready())
      return (RateLimiterRedis.prototype as unknown as LibraryHooks)._upsert.call(
        this,
        key,
        points,
        msDuration,
        forceExpire,
      );
    return this.redis.rlflxIncr([key, String(points), String(seconds), String(this.points), String(this.duration)]);
  }

  /** What the library checks with `rejectIfRedisNotReady`, for an ioredis client. */
  private ready(): boolean {
    return this.redis.status === 'ready';
  }

  async _get(key: string): Promise<[string, number] | null> {
    // The library's own answer while the connection is down: its insurance limiter takes over.
    if (!this.ready()) throw new Error('Redis connection is not ready');
    const [points, ttl] = await this.redis.rlflxGetWithTtl(key);
    return points === null ? null : [points, ttl];
  }
}

interface LibraryHooks {
  _upsert(key: string, points: number, msDuration: number, forceExpire: boolean): Promise<unknown>;
}

/**
 * Counters in Redis (rate-limiter-flexible's RateLimiterRedis, its count and read one script call each,
 * see ScriptedRateLimiterRedis). Give it a client with auto-pipelining, so calls of one tick (a
 * request's count and its lock-out read, a send's three windows) leave in one write. The client is the
 * caller's to close.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly description = 'Redis';
  private readonly outage = new OutageLog(new Logger('RateLimitStore'), this.description);

  constructor(private readonly redis: Redis) {
    redis.on('ready', () => this.outage.reachable());
  }

  limiter(window: FixedWindow): RateLimiterRedis {
    return new ScriptedRateLimiterRedis({
      ...window,
      storeClient: this.redis,
      // While the connection is down, count in memory at once rather than wait for ioredis' retries.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new InsuranceLimiter(window, () => this.outage.unreachable()),
    });
  }

  async close(): Promise<void> {
    // The client is shared; its owner closes it.
  }
}
