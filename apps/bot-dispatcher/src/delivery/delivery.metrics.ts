import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@app/platform';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Where the per-bot gauges read their values on each scrape. */
export interface BotLoadSource {
  inFlight(): Iterable<[string, number]>;
  /** Open deliveries of the bots with the largest backlog. */
  queueDepth(): Promise<Iterable<[string, number]>>;
}

/** Delivery figures for /metrics. */
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

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.attempts = new Counter({
      name: 'bot_webhook_attempts_total',
      help: 'Webhook POST attempts by outcome (succeeded, retrying, dead_letter)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.skipped = new Counter({
      name: 'bot_webhook_jobs_skipped_total',
      help: 'Delivery jobs skipped because the delivery was no longer due, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
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
      help: 'Webhook POSTs open on this replica, per bot (bots with none are not listed)',
      labelNames: ['bot_id'],
      registers: [registry],
      collect: () => {
        this.inFlight.reset();
        for (const [botId, count] of this.botLoad?.inFlight() ?? []) this.inFlight.set({ bot_id: botId }, count);
      },
    });
    this.queueDepth = new Gauge({
      name: 'bot_webhook_queue_depth',
      help: 'Open deliveries (pending or retrying) of the bots with the largest backlog, per bot',
      labelNames: ['bot_id'],
      registers: [registry],
      collect: async () => {
        const depths = (await this.botLoad?.queueDepth()) ?? [];
        this.queueDepth.reset();
        for (const [botId, open] of depths) this.queueDepth.set({ bot_id: botId }, open);
      },
    });
  }

  /** The per-bot gauges read `source` from now on. */
  observeBots(source: BotLoadSource): void {
    this.botLoad = source;
  }
}
