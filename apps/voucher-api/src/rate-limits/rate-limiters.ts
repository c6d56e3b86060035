import { Inject, Injectable } from '@nestjs/common';
import { RATE_LIMIT_STORE, type RateLimitStore, RateLimitOutcome, WindowedRateLimiters } from '@app/rate-limits';
import { VoucherConfig } from '../config/voucher.config';
import { RateLimitedEndpoint, resolveRateLimits } from '../config/rate-limit.policy';

/**
 * Fixed one-minute windows per (endpoint, token), counted in the rate-limit store so every replica
 * shares them. While the store cannot be reached each process keeps counting in memory, so a leaked token still
 * cannot call faster than its limit (times the number of replicas) during an outage.
 */
@Injectable()
export class RateLimiters {
  readonly limiters: WindowedRateLimiters<RateLimitedEndpoint>;

  constructor(@Inject(RATE_LIMIT_STORE) store: RateLimitStore, config: VoucherConfig) {
    this.limiters = new WindowedRateLimiters({ store, limits: resolveRateLimits(config.RATE_LIMITS), keyPrefix: 'rl' });
  }

  consume(endpoint: RateLimitedEndpoint, subject: string): Promise<RateLimitOutcome> {
    return this.limiters.consume(endpoint, subject);
  }
}
