import { Inject, Injectable } from '@nestjs/common';
import { RATE_LIMIT_STORE, type RateLimitStore, WindowedRateLimiters } from '@app/rate-limits';
import { BotErrors } from '../../bot-errors';
import { BotConfig } from '../../config/bot.config';

/**
 * Counts bot token look-ups that found no bot, per client address. Past the limit an address gets
 * 429 for the rest of the minute before its next look-up reaches the database, so guessing tokens
 * costs the guesser its rate instead of costing the database a query each.
 */
@Injectable()
export class TokenFailureLimiter {
  private readonly failures: WindowedRateLimiters<'failures'>;

  constructor(@Inject(RATE_LIMIT_STORE) store: RateLimitStore, config: BotConfig) {
    this.failures = new WindowedRateLimiters({
      store,
      limits: { failures: config.BOT_TOKEN_FAILURES_PER_MINUTE },
      keyPrefix: 'token-failures',
    });
  }

  async assertNotLocked(address: string): Promise<void> {
    const state = await this.failures.peek('failures', address);
    if (!state || state.consumedPoints < this.failures.limitOf('failures')) return;
    const retryAfter = Math.max(Math.ceil(state.msBeforeNext / 1000), 1);
    throw BotErrors.error('RATE_LIMITED', 'Too many unknown bot tokens from this address; retry later', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }

  async recordFailure(address: string): Promise<void> {
    await this.failures.penalty('failures', address);
  }
}
