import { Inject, Injectable } from '@nestjs/common';
import { RATE_LIMIT_STORE, type RateLimitStore } from '@app/rate-limits';
import { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { BotErrors } from '../bot-errors';
import { effectiveRateLimits } from '../bots/rate-limits';
import type { Bot } from '../bots/entities/bot.entity';
import { BotConfig } from '../config/bot.config';
import { IdleEvictingMap } from './idle-evicting-map';

const WINDOWS = [
  { name: 'sec', seconds: 1, limit: 'send_per_sec' },
  { name: 'min', seconds: 60, limit: 'send_per_min' },
  { name: 'day', seconds: 86400, limit: 'send_per_day' },
] as const;

/**
 * One limiter per (window, limit) in use. A limiter holds no count (the store does), so dropping one
 * costs only its rebuild; the bound keeps bots with many distinct rate_limits from growing memory.
 */
const LIMITER_CACHE = { maxEntries: 1000, idleMs: 10 * 60_000 };

export interface QuotaState {
  /** Sends left in the tightest window. */
  remaining: number;
  /** Unix seconds at which that window resets. */
  resetAt: number;
}

export function quotaHeaders(state: QuotaState): Record<string, string> {
  return { 'X-BotRateLimit-Remaining': String(state.remaining), 'X-BotRateLimit-Reset': String(state.resetAt) };
}

/**
 * Per-bot send quotas in the rate-limit store (fixed windows of a second, a minute and a day), with
 * its in-memory insurance while the store is unreachable. The counter key does not depend on the
 * limit, so changing a bot's rate_limits applies to the running window at once. The three windows
 * are counted together (on Redis the client pipelines them into one round trip, on PostgreSQL the
 * store counts them in one statement); a refused send counts only in the first window that refuses it
 * and gives its points back to every other (a second statement, on refusals only), so only sends that
 * go through count against the longer windows (as when the windows were asked in turn).
 */
@Injectable()
export class SendQuotaService {
  private readonly limiters = new IdleEvictingMap<string, RateLimiterAbstract>(LIMITER_CACHE);

  constructor(
    private readonly config: BotConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {}

  /** Counts `points` sends against every window; throws 429 BOT_RATE_LIMIT when one is exhausted. */
  async consume(bot: Pick<Bot, 'id' | 'rateLimits'>, points = 1): Promise<QuotaState> {
    const limits = effectiveRateLimits(bot.rateLimits, this.config);
    const limiters = WINDOWS.map((window) => this.limiter(window.name, window.seconds, limits[window.limit]));
    const outcomes = await Promise.allSettled(limiters.map((limiter) => limiter.consume(bot.id, points)));
    const failure = outcomes.find(
      (outcome): outcome is PromiseRejectedResult =>
        outcome.status === 'rejected' && !(outcome.reason instanceof RateLimiterRes),
    );
    const refusedAt = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    if (refusedAt >= 0) {
      // A window counts a consume even when it refuses it, so every window but the first to refuse
      // gives the points back, the refusing ones included: concurrent refused sends must not push a
      // longer window over its limit.
      await Promise.all(
        outcomes.map((outcome, index) =>
          index !== refusedAt && (outcome.status === 'fulfilled' || outcome.reason instanceof RateLimiterRes)
            ? limiters[index].reward(bot.id, points).catch(() => undefined)
            : undefined,
        ),
      );
      if (failure) throw failure.reason;
      const rejection = (outcomes[refusedAt] as PromiseRejectedResult).reason as RateLimiterRes;
      const window = WINDOWS[refusedAt];
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      const state = { remaining: 0, resetAt: Math.ceil((Date.now() + rejection.msBeforeNext) / 1000) };
      throw BotErrors.error(
        'BOT_RATE_LIMIT',
        `Send quota of ${limits[window.limit]} per ${window.name} reached; retry after ${retryAfter} s`,
        { headers: { 'Retry-After': String(retryAfter), ...quotaHeaders(state) } },
      );
    }
    let tightest: QuotaState | undefined;
    for (const outcome of outcomes as PromiseFulfilledResult<RateLimiterRes>[]) {
      const state = {
        remaining: outcome.value.remainingPoints,
        resetAt: Math.ceil((Date.now() + outcome.value.msBeforeNext) / 1000),
      };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    return tightest!;
  }

  private limiter(name: string, seconds: number, points: number): RateLimiterAbstract {
    return this.limiters.getOrCreate(`${name}:${points}`, () =>
      this.store.limiter({ keyPrefix: `bot-send-quota:${name}`, points, duration: seconds }),
    );
  }
}
