import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@app/platform';
import { DeliveryDomain } from '@app/bot-delivery';
import { Gauge, Registry } from 'prom-client';

/**
 * The days the delivery tables can still take rows for, read from PostgreSQL's catalog on scrape: the
 * periodic task keeps a week ahead, and a write of a day without its partition fails, so a falling
 * value is a task that stopped running (alert DeliveryDaysRunningOut). A failed read keeps the last value.
 */
@Injectable()
export class DeliveryPartitionsMetrics {
  readonly daysAhead: Gauge;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry, delivery: DeliveryDomain) {
    this.daysAhead = new Gauge({
      name: 'bot_delivery_days_ahead',
      help: 'Whole days after today (UTC) for which updates, webhook_deliveries and webhook_delivery_attempts all have their partition',
      registers: [registry],
      async collect() {
        const days = await delivery.daysAheadCovered().catch(() => null);
        if (days !== null) this.set(days);
      },
    });
  }
}
