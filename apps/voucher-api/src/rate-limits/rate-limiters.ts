import { Inject, Injectable, Logger } from '@nestjs/common';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { VoucherConfig } from '../config/voucher.config';
import { RATE_LIMIT_WINDOW_SECONDS, RateLimitedEndpoint, resolveRateLimits } from './rate-limit.policy';

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

/**
 * Fixed one-minute windows per (endpoint, token), counted in Redis so every replica shares them.
 * The window of a counter starts with its first call and lasts a minute.
 */
@Injectable()
export class RateLimiters {
  private readonly limits: Record<RateLimitedEndpoint, number>;
  private readonly limiters = new Map<RateLimitedEndpoint, RateLimiterRedis>();
  private readonly logger = new Logger('RateLimiters');

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: VoucherConfig,
  ) {
    this.limits = resolveRateLimits(config.RATE_LIMITS);
  }

  /**
   * Null when the counter cannot be reached: PostgreSQL holds every voucher and redemption, so a Redis
   * outage must not stop redeeming; the call proceeds unlimited and the outage is logged.
   */
  async consume(endpoint: RateLimitedEndpoint, subject: string): Promise<RateLimitOutcome | null> {
    const limit = this.limits[endpoint];
    try {
      return this.outcome(limit, true, await this.limiter(endpoint).consume(subject));
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return this.outcome(limit, false, rejection);
      this.logger.warn(`rate limit of ${endpoint} not applied, counter unavailable: ${(rejection as Error).message}`);
      return null;
    }
  }

  private outcome(limit: number, allowed: boolean, res: RateLimiterRes): RateLimitOutcome {
    const msBeforeNext = Math.max(res.msBeforeNext, 0);
    return {
      allowed,
      limit,
      remaining: Math.max(res.remainingPoints, 0),
      resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(Math.ceil(msBeforeNext / 1000), 1),
    };
  }

  private limiter(endpoint: RateLimitedEndpoint): RateLimiterRedis {
    let limiter = this.limiters.get(endpoint);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `rl:${endpoint}`,
        points: this.limits[endpoint],
        duration: RATE_LIMIT_WINDOW_SECONDS,
      });
      this.limiters.set(endpoint, limiter);
    }
    return limiter;
  }
}
