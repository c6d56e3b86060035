import { Inject, Injectable } from '@nestjs/common';
import { RATE_LIMIT_STORE, type RateLimitStore, WindowedRateLimiters } from '@app/rate-limits';
import { LRUCache } from 'lru-cache';
import { BotErrors } from '../../bot-errors';
import { BotConfig } from '../../config/bot.config';

/** Addresses this process refuses until their window ends, without asking the store again. */
const MAX_REMEMBERED_REFUSALS = 10_000;

/**
 * Counts bot tokens that name no bot, per client address; past BOT_TOKEN_FAILURES_PER_MINUTE the
 * address's next such token gets 429 until the minute ends. It only ever sees tokens already known to
 * name no bot (BotTokenService checks a token first), so it cannot refuse a real bot, whatever others
 * sharing its address (an office, a carrier's NAT, a proxy) sent. Once an address is refused, this
 * process remembers it until its window ends, so a flood costs the store one count per replica past the
 * limit, not one per request.
 */
@Injectable()
export class TokenFailureLimiter {
  private readonly failures: WindowedRateLimiters<'failures'>;
  private readonly limit: number;
  private readonly refused = new LRUCache<string, number>({ max: MAX_REMEMBERED_REFUSALS });

  constructor(@Inject(RATE_LIMIT_STORE) store: RateLimitStore, config: BotConfig) {
    this.limit = config.BOT_TOKEN_FAILURES_PER_MINUTE;
    this.failures = new WindowedRateLimiters({
      store,
      // Stryker disable next-line ObjectLiteral: penalty() only counts; the limit is compared below, not by the store
      limits: { failures: this.limit },
      // Stryker disable next-line StringLiteral: the counter's key name; only that no other counter shares it matters
      keyPrefix: 'token-failures',
    });
  }

  /** Counts an unknown token against the address; throws 429 RATE_LIMITED once the address is past the limit. */
  async recordFailure(address: string): Promise<void> {
    const refusedUntil = this.refused.get(address);
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: skipping the memory only costs a store count; the store refuses the same address alike
    if (refusedUntil !== undefined && refusedUntil > Date.now()) throw lockedOut(refusedUntil - Date.now());
    // Stryker disable next-line StringLiteral: the counter's key name, as above
    const state = await this.failures.penalty('failures', address);
    if (state.consumedPoints <= this.limit) return;
    const msBeforeNext = Math.max(state.msBeforeNext, 0);
    // Stryker disable next-line all: what is remembered only spares the store counts; a refusal it misses, the store gives
    this.refused.set(address, Date.now() + msBeforeNext, { ttl: Math.max(msBeforeNext, 1) });
    throw lockedOut(msBeforeNext);
  }
}

function lockedOut(msBeforeNext: number) {
  const retryAfter = Math.max(Math.ceil(msBeforeNext / 1000), 1);
  return BotErrors.error('RATE_LIMITED', 'Too many unknown bot tokens from this address; retry later', {
    headers: { 'Retry-After': String(retryAfter) },
  });
}
