import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@app/platform';
import { Counter, Histogram, Registry } from 'prom-client';

/** Delivery figures for /metrics. */
@Injectable()
export class DeliveryMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly skipped: Counter<'reason'>;
  readonly latency: Histogram;
  readonly swept: Counter;

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
    this.swept = new Counter({
      name: 'bot_webhook_sweeper_enqueued_total',
      help: 'Overdue deliveries the sweeper put (back) on the queue',
      registers: [registry],
    });
  }
}
