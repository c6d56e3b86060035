import { Inject, Injectable } from '@nestjs/common';
import { ATTEMPT_OUTCOMES, SKIP_REASONS } from '@app/bot-delivery';
import { METRICS_REGISTRY } from '@app/platform';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The open deliveries of the bots with the largest backlog; `complete` when no other bot has any. */
export interface BacklogReading {
  depths: Iterable<[string, number]>;
  complete: boolean;
}

/** Where the per-bot gauges read their values on each scrape. */
export interface BotLoadSource {
  inFlight(): Iterable<[string, number]>;
  queueDepth(): Promise<BacklogReading>;
}

/**
 * A bot's per-bot series stay, at 0, this long after it was last seen busy on this replica, so a
 * dashboard shows its in-flight count and backlog fall to zero instead of losing them ("No data").
 */
export const IDLE_BOT_SERIES_MS = 60 * 60_000;
/** The idle bots a replica keeps series of, the most recently busy first: the bound on those series. */
export const MAX_IDLE_BOT_SERIES = 1000;

/**
 * Delivery figures for /metrics. Every series of a fixed label set (outcomes, skip reasons) exists
 * from the start at 0; per-bot series exist for the bots busy on this replica lately (see above).
 */
@Injectable()
export class DeliveryMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly skipped: Counter<'reason'>;
  readonly latency: Histogram;
  readonly lag: Histogram;
  readonly swept: Counter;
  readonly deferred: Counter;
  readonly inFlight: Gauge<'bot_id'>;
  readonly queueDepth: Gauge<'bot_id'>;
  private botLoad?: BotLoadSource;
  private readonly recentBots = new LRUCache<string, true>({
    max: MAX_IDLE_BOT_SERIES,
    ttl: IDLE_BOT_SERIES_MS,
    // The wall clock, read when asked: an hour's retention needs no monotonic time.
    perf: { now: () => Date.now() },
  });

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.attempts = new Counter({
      name: 'bot_webhook_attempts_total',
      help: 'Webhook POST attempts by outcome (succeeded, retrying, dead_letter)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ATTEMPT_OUTCOMES) this.attempts.inc({ outcome }, 0);
    this.skipped = new Counter({
      name: 'bot_webhook_jobs_skipped_total',
      help: 'Delivery jobs skipped because the delivery was no longer due, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of SKIP_REASONS) this.skipped.inc({ reason }, 0);
    this.latency = new Histogram({
      name: 'bot_webhook_attempt_seconds',
      help: 'Duration of webhook POST attempts',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    });
    this.lag = new Histogram({
      name: 'bot_webhook_delivery_lag_seconds',
      help: 'From a delivery job being queued to its receiver taking it at the first attempt (a healthy receiver)',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    this.swept = new Counter({
      name: 'bot_webhook_sweeper_enqueued_total',
      help: 'Overdue deliveries the sweeper put (back) on the queue',
      registers: [registry],
    });
    this.deferred = new Counter({
      name: 'bot_webhook_jobs_deferred_total',
      help: 'Jobs put back for a moment because their bot already held its share of this replica (not attempts)',
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: 'bot_webhook_in_flight',
      help: 'Webhook POSTs open on this replica, per bot (0 for a bot busy here within the last hour)',
      labelNames: ['bot_id'],
      registers: [registry],
      collect: () => {
        this.inFlight.reset();
        for (const [botId, count] of this.withRecentBots(this.botLoad?.inFlight() ?? [], true)) {
          this.inFlight.set({ bot_id: botId }, count);
        }
      },
    });
    this.queueDepth = new Gauge({
      name: 'bot_webhook_queue_depth',
      help:
        'Open deliveries (pending or retrying) of the bots with the largest backlog, per bot ' +
        '(0 for a bot busy here within the last hour once no backlog is left out)',
      labelNames: ['bot_id'],
      registers: [registry],
      collect: async () => {
        const reading = await this.botLoad?.queueDepth();
        this.queueDepth.reset();
        if (!reading) return;
        for (const [botId, open] of this.withRecentBots(reading.depths, reading.complete)) {
          this.queueDepth.set({ bot_id: botId }, open);
        }
      },
    });
  }

  /** The per-bot gauges read `source` from now on. */
  observeBots(source: BotLoadSource): void {
    this.botLoad = source;
  }

  /** A POST of this bot started here: its per-bot series stay from now on, at 0 once it is idle. */
  botBusy(botId: string): void {
    this.recentBots.set(botId, true);
  }

  /**
   * The readings, then 0 for each bot busy lately that they leave out, when `complete` says that a bot
   * left out has none (the in-flight reading lists every bot; the backlog only its largest).
   */
  private withRecentBots(readings: Iterable<[string, number]>, complete: boolean): Map<string, number> {
    const values = new Map(readings);
    if (!complete) return values;
    for (const botId of values.keys()) this.recentBots.set(botId, true);
    for (const botId of this.recentBots.keys()) if (!values.has(botId)) values.set(botId, 0);
    return values;
  }
}
