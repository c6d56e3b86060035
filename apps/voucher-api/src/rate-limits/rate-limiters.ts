import { Inject, Injectable } from '@nestjs/common';
import { REDIS } from '@app/platform';
import { RateLimitOutcome, WindowedRateLimiters } from '@app/rate-limits';
import type Redis from 'ioredis';
import { VoucherConfig } from '../config/voucher.config';
import { RateLimitedEndpoint, resolveRateLimits } from './rate-limit.policy';

/**
 * Fixed one-minute windows per (endpoint, token), counted in Redis so every replica shares them.
 * While Redis cannot be reached each process keeps counting in memory, so a leaked token still
 * cannot call faster than its limit (times the number of replicas) during an outage.
 */
@Injectable()
export class RateLimiters {
  readonly limiters: WindowedRateLimiters<RateLimitedEndpoint>;

  constructor(@Inject(REDIS) redis: Redis, config: VoucherConfig) {
    this.limiters = new WindowedRateLimiters({
      redis,
      limits: resolveRateLimits(config.RATE_LIMITS),
      keyPrefix: 'rl',
      name: 'RateLimiters',
    });
  }

  consume(endpoint: RateLimitedEndpoint, subject: string): Promise<RateLimitOutcome> {
    return this.limiters.consume(endpoint, subject);
  }
}
