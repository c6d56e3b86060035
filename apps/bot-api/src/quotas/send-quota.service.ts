import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { effectiveRateLimits } from '../bots/rate-limits';
import type { Bot } from '../bots/entities/bot.entity';
import { BotConfig } from '../config/bot.config';

const WINDOWS = [
  { name: 'sec', seconds: 1, limit: 'send_per_sec' },
  { name: 'min', seconds: 60, limit: 'send_per_min' },
  { name: 'day', seconds: 86400, limit: 'send_per_day' },
] as const;

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
 * Per-bot send quotas in Redis (fixed windows of a second, a minute and a day). The counter key does
 * not depend on the limit, so changing a bot's rate_limits applies to the running window at once.
 */
@Injectable()
export class SendQuotaService {
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: BotConfig,
  ) {}

  /** Counts `points` sends against every window; throws 429 BOT_RATE_LIMIT when one is exhausted. */
  async consume(bot: Pick<Bot, 'id' | 'rateLimits'>, points = 1): Promise<QuotaState> {
    const limits = effectiveRateLimits(bot.rateLimits, this.config);
    let tightest: QuotaState | undefined;
    for (const window of WINDOWS) {
      const limiter = this.limiter(window.name, window.seconds, limits[window.limit]);
      let result: RateLimiterRes;
      try {
        result = await limiter.consume(bot.id, points);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        const state = { remaining: 0, resetAt: Math.ceil((Date.now() + rejection.msBeforeNext) / 1000) };
        throw new ApiError(
          429,
          'BOT_RATE_LIMIT',
          `Send quota of ${limits[window.limit]} per ${window.name} reached; retry after ${retryAfter} s`,
          undefined,
          { 'Retry-After': String(retryAfter), ...quotaHeaders(state) },
        );
      }
      const state = {
        remaining: result.remainingPoints,
        resetAt: Math.ceil((Date.now() + result.msBeforeNext) / 1000),
      };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    return tightest!;
  }

  private limiter(name: string, seconds: number, points: number): RateLimiterRedis {
    const key = `${name}:${points}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `bot-send-quota:${name}`,
        points,
        duration: seconds,
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}
