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
