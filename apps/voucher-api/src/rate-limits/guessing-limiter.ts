import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { VoucherConfig } from '../config/voucher.config';

/**
 * Counts failed credential look-ups per token. Past the threshold the token is refused on verify and
 * redeem until the window ends, so codes cannot be enumerated at the normal rate limit. Like the rate
 * limits it stands aside (with a warning) while Redis is unreachable rather than stop all redeeming.
 */
@Injectable()
export class GuessingLimiter {
  private readonly failures: RateLimiterRedis;
  private readonly threshold: number;
  private readonly logger = new Logger('GuessingLimiter');

  constructor(@Inject(REDIS) redis: Redis, config: VoucherConfig) {
    this.threshold = config.GUESS_LIMIT;
    this.failures = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'guess',
      points: config.GUESS_LIMIT,
      duration: config.GUESS_WINDOW_SECONDS,
    });
  }

  async assertNotLocked(tokenId: string): Promise<void> {
    const lockout = await this.lockout(tokenId);
    if (lockout) throw lockout;
  }

  /** The 429 a locked-out token gets, or undefined; never throws, so it can run beside the rate limit. */
  async lockout(tokenId: string): Promise<ApiError | undefined> {
    const state = await this.failures.get(tokenId).catch((error: Error) => {
      this.logger.warn(`guessing lock-out not checked, counter unavailable: ${error.message}`);
      return null;
    });
    if (!state || state.consumedPoints < this.threshold) return undefined;
    const retryAfter = Math.max(Math.ceil(state.msBeforeNext / 1000), 1);
    return new ApiError(
      429,
      'RATE_LIMITED',
      'Too many failed credential look-ups; verify and redeem are locked for this token',
      undefined,
      { 'Retry-After': String(retryAfter) },
    );
  }

  async recordFailure(tokenId: string): Promise<void> {
    await this.failures.penalty(tokenId, 1).catch((error: Error) => {
      this.logger.warn(`failed look-up not counted, counter unavailable: ${error.message}`);
    });
  }
}
