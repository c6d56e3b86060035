import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { RATE_LIMIT_WINDOW_SECONDS } from './rate-limit-policy';

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

export interface WindowedRateLimitersOptions<E extends string> {
  redis: Redis;
  limits: Readonly<Record<E, number>>;
  /** Prefix of the counters' keys (the client's own keyPrefix comes first). */
  keyPrefix: string;
  name: string;
  /** Length of a window; the one minute of every request limit unless a counter needs another. */
  windowSeconds?: number;
}

/**
 * Fixed one-minute windows per (endpoint, subject), counted in Redis so every replica shares them.
 * While Redis cannot be reached, each process keeps counting in memory with the same limits
 * (rate-limiter-flexible's insurance limiter): limiting never fails open, and during an outage a
 * subject can make at most the limit times the number of replicas.
 */
export class WindowedRateLimiters<E extends string> {
  private readonly limiters = new Map<E, RateLimiterRedis>();
  private readonly logger: Logger;
  private outage = false;

  constructor(private readonly options: WindowedRateLimitersOptions<E>) {
    this.logger = new Logger(options.name);
  }

  limitOf(endpoint: E): number {
    return this.options.limits[endpoint];
  }

  async consume(endpoint: E, subject: string, points = 1): Promise<RateLimitOutcome> {
    const limit = this.limitOf(endpoint);
    try {
      const res = await this.limiter(endpoint).consume(subject, points);
      // The insurance limiter answers successfully too; only a ready connection means Redis is back.
      if (this.options.redis.status === 'ready') this.noteRedis(true);
      return outcome(limit, true, res);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return outcome(limit, false, rejection);
      throw rejection;
    }
  }

  /**
   * `consume` of this counter and `peek` of another (same Redis client) in ONE script call, so a request
   * that needs both pays one write and one round trip instead of an EVALSHA plus a MULTI. The keys,
   * expiry and counting are rate-limiter-flexible's own (its `rlflxIncr` script and its GET/PTTL),
   * so both paths read and write the same counters. While Redis is not ready, or if the script fails,
   * it falls back to the library's two calls, which count in memory (the insurance limiter).
   */
  async consumeAndPeek<F extends string>(
    endpoint: E,
    subject: string,
    peeked: WindowedRateLimiters<F>,
    peekedEndpoint: F,
  ): Promise<[RateLimitOutcome, RateLimiterRes | null]> {
    const redis = this.options.redis as Redis & { [CONSUME_AND_PEEK]?: ConsumeAndPeekCommand };
    if (redis === peeked.options.redis && redis.status === 'ready') {
      const limit = this.limitOf(endpoint);
      const counter = this.limiter(endpoint);
      const other = peeked.limiter(peekedEndpoint);
      try {
        const [consumed, ttl, peekedPoints, peekedTtl] = await consumeAndPeekCommand(redis)(
          counter.getKey(subject),
          other.getKey(subject),
          1,
          counter.duration,
        );
        this.noteRedis(true);
        const res = new RateLimiterRes(Math.max(limit - consumed, 0), ttl, consumed, consumed === 1);
        const state =
          peekedPoints === null ? null : new RateLimiterRes(undefined, peekedTtl, Number.parseInt(peekedPoints, 10));
        return [outcome(limit, consumed <= limit, res), state];
      } catch {
        // Fall through: the library's calls retry and, failing that, count in memory.
      }
    }
    return Promise.all([this.consume(endpoint, subject), peeked.peek(peekedEndpoint, subject)]);
  }

  /** Reads a counter without counting; null while it has no window open. */
  async peek(endpoint: E, subject: string): Promise<RateLimiterRes | null> {
    return this.limiter(endpoint).get(subject);
  }

  /** Adds points without asking for permission (e.g. a failed look-up that counts against its caller). */
  async penalty(endpoint: E, subject: string, points = 1): Promise<void> {
    await this.limiter(endpoint).penalty(subject, points);
  }

  private limiter(endpoint: E): RateLimiterRedis {
    let limiter = this.limiters.get(endpoint);
    if (!limiter) {
      const points = this.limitOf(endpoint);
      const keyPrefix = `${this.options.keyPrefix}:${endpoint}`;
      const duration = this.options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
      limiter = new RateLimiterRedis({
        storeClient: this.options.redis,
        keyPrefix,
        points,
        duration,
        // While the connection is down, count in memory at once rather than wait for ioredis' retries.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new InsuranceLimiter({ keyPrefix, points, duration }, () =>
          this.noteRedis(false),
        ),
      });
      this.limiters.set(endpoint, limiter);
    }
    return limiter;
  }

  private noteRedis(reachable: boolean): void {
    if (reachable === !this.outage) return;
    this.outage = !reachable;
    if (this.outage) this.logger.warn('Redis unreachable: rate limits are counted in memory by each process');
    else this.logger.log('Redis reachable again: rate limits are shared by every process');
  }
}

const CONSUME_AND_PEEK = 'rateLimitConsumeAndPeek';

/** Its first four lines are rate-limiter-flexible's `rlflxIncr` (fixed window: the first point sets the expiry). */
const CONSUME_AND_PEEK_LUA = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl, redis.call('get', KEYS[2]), redis.call('pttl', KEYS[2])}`;

type ConsumeAndPeekCommand = (
  consumedKey: string,
  peekedKey: string,
  points: number,
  windowSeconds: number,
) => Promise<[number, number, string | null, number]>;

function consumeAndPeekCommand(redis: Redis & { [CONSUME_AND_PEEK]?: ConsumeAndPeekCommand }): ConsumeAndPeekCommand {
  if (typeof redis[CONSUME_AND_PEEK] !== 'function') {
    redis.defineCommand(CONSUME_AND_PEEK, { numberOfKeys: 2, lua: CONSUME_AND_PEEK_LUA });
  }
  const command = redis[CONSUME_AND_PEEK] as ConsumeAndPeekCommand;
  return (...args) => command.apply(redis, args);
}

/** The in-memory stand-in, which also tells its owner that Redis just failed. */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
    this.onUse();
    return super.consume(...args);
  }
}

function outcome(limit: number, allowed: boolean, res: RateLimiterRes): RateLimitOutcome {
  const msBeforeNext = Math.max(res.msBeforeNext, 0);
  return {
    allowed,
    limit,
    remaining: Math.max(res.remainingPoints, 0),
    resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
    retryAfterSeconds: Math.max(Math.ceil(msBeforeNext / 1000), 1),
  };
}
