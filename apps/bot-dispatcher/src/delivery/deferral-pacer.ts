import { LRUCache } from 'lru-cache';

export interface DeferralPacerOptions {
  /** The shortest wait of a deferred job. */
  minDelayMs: number;
  /** The longest: a job of a bot with a long backlog comes back at the latest after about this. */
  maxDelayMs: number;
  /** How long a bot's POST is assumed to hold its slot before any of them has ended. */
  initialHoldMs: number;
  /** Bots remembered; the least recently deferred beyond it are forgotten. */
  maxBots?: number;
}

interface BotPace {
  /** When the last deferred job of the bot was booked to come back. */
  nextAt: number;
  /** Moving average of how long the bot's POSTs held their slot. */
  holdMs: number;
  /** False while holdMs is only the initial assumption. */
  observed: boolean;
}

/** Weight of the newest POST in the moving average of a bot's hold time. */
const HOLD_WEIGHT = 0.2;

/**
 * When the jobs of a bot at its limit come back to the queue. A bot's slots free up at the rate its
 * receiver answers: `slots` POSTs each holding its slot for `holdMs`. Deferred jobs are booked one
 * behind the other at that rate, like a queue of their own, instead of each coming back after a
 * fixed pause: a bot whose receiver never answers then costs the replica about one look at a job per
 * freed slot, however long its backlog, and the jobs of other bots do not queue behind a crowd of its
 * deferred ones coming back to find it still full.
 */
export class DeferralPacer {
  /** Most recently deferred last: reading a pace (`peek`) does not make a bot recent, deferring it does. */
  private readonly bots: LRUCache<string, BotPace>;

  constructor(private readonly options: DeferralPacerOptions) {
    this.bots = new LRUCache({ max: options.maxBots ?? 10_000 });
  }

  /** One POST of the bot held its slot for `ms`. */
  observeHold(botId: string, ms: number): void {
    const pace = this.bots.peek(botId);
    if (!pace) this.bots.set(botId, { nextAt: 0, holdMs: ms, observed: true });
    else if (!pace.observed) Object.assign(pace, { holdMs: ms, observed: true });
    else pace.holdMs += HOLD_WEIGHT * (ms - pace.holdMs);
  }

  /** The moving average of how long the bot's POSTs held their slot; undefined before the first one ended. */
  observedHoldOf(botId: string): number | undefined {
    const pace = this.bots.peek(botId);
    return pace?.observed ? pace.holdMs : undefined;
  }

  /** The delay of a job of `botId` that found the bot at its limit while it holds `slots` slots. */
  delayFor(botId: string, slots: number, now = Date.now(), random = Math.random()): number {
    const { minDelayMs, maxDelayMs } = this.options;
    const pace = this.touch(botId, now);
    const interval = pace.holdMs / Math.max(1, slots);
    const booked = Math.max(pace.nextAt, now + minDelayMs) + interval;
    if (booked - now <= maxDelayMs) {
      pace.nextAt = booked;
      return Math.round(booked - now + random * interval);
    }
    // A backlog longer than the horizon: its jobs come back spread over the second half of it.
    pace.nextAt = now + maxDelayMs;
    return Math.round(maxDelayMs * (0.5 + random / 2));
  }

  private touch(botId: string, now: number): BotPace {
    const pace = this.bots.peek(botId) ?? { nextAt: now, holdMs: this.options.initialHoldMs, observed: false };
    this.bots.set(botId, pace);
    return pace;
  }
}
