import { Inject, Injectable } from '@nestjs/common';
import type { ApiError } from '@app/envelope';
import { RATE_LIMIT_STORE, type RateLimitStore, RateLimitOutcome, WindowedRateLimiters } from '@app/rate-limits';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import { VoucherConfig } from '../config/voucher.config';
import { VoucherErrors } from '../voucher-errors';

/**
 * Counts failed credential look-ups per token. Past the threshold the token is refused on verify and
 * redeem until the window ends, so codes cannot be enumerated at the normal rate limit. While the store
 * is unreachable each process counts in memory, so the lock-out holds during an outage too (a leaked
 * token gets at most the threshold times the number of replicas).
 */
@Injectable()
export class GuessingLimiter {
  private readonly failures: WindowedRateLimiters<'failures'>;
  private readonly threshold: number;

  constructor(@Inject(RATE_LIMIT_STORE) store: RateLimitStore, config: VoucherConfig) {
    this.threshold = config.GUESS_LIMIT;
    this.failures = new WindowedRateLimiters({
      store,
      limits: { failures: config.GUESS_LIMIT },
      keyPrefix: 'guess',
      windowSeconds: config.GUESS_WINDOW_SECONDS,
    });
  }

  async assertNotLocked(tokenId: string): Promise<void> {
    const lockout = await this.lockout(tokenId);
    if (lockout) throw lockout;
  }

  /** The 429 a locked-out token gets, or undefined. */
  async lockout(tokenId: string): Promise<ApiError | undefined> {
    return this.lockoutFrom(await this.failures.peek('failures', tokenId));
  }

  /**
   * Counts a call against `limiters` and reads this token's failures together (one write on Redis):
   * the rate-limit outcome and the lock-out, if any.
   */
  async consumeChecking<E extends string>(
    limiters: WindowedRateLimiters<E>,
    endpoint: E,
    tokenId: string,
  ): Promise<[RateLimitOutcome, ApiError | undefined]> {
    const [outcome, state] = await limiters.consumeAndPeek(endpoint, tokenId, this.failures, 'failures');
    return [outcome, this.lockoutFrom(state)];
  }

  private lockoutFrom(state: RateLimiterRes | null): ApiError | undefined {
    if (!state || state.consumedPoints < this.threshold) return undefined;
    const retryAfter = Math.max(Math.ceil(state.msBeforeNext / 1000), 1);
    return VoucherErrors.error(
      'RATE_LIMITED',
      'Too many failed credential look-ups; verify and redeem are locked for this token',
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }

  async recordFailure(tokenId: string): Promise<void> {
    await this.failures.penalty('failures', tokenId);
  }
}
