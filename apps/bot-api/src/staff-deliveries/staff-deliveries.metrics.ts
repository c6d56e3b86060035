import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@app/platform';
import { DELIVERY_ERROR_CLASSES, DeliveryDomain } from '@app/bot-delivery';
import { Counter, Gauge, Registry } from 'prom-client';
import { RedriveJobsStore } from './redrive-jobs.store';

/** The error_class values of bot_webhook_dead_letters: the classes, and `none` for a delivery without an error. */
const DEAD_LETTER_CLASSES = [...DELIVERY_ERROR_CLASSES, 'none'];

/**
 * Figures of staff delivery operations for /metrics. The gauges are platform-wide, read from
 * PostgreSQL on scrape; a failed read keeps the last value (/health/ready reports the database).
 */
@Injectable()
export class StaffDeliveriesMetrics {
  readonly redelivered: Counter;
  readonly autoRedelivered: Counter;
  readonly deadLetters: Gauge<'error_class'>;
  readonly runningJobs: Gauge;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry, delivery: DeliveryDomain, jobs: RedriveJobsStore) {
    this.redelivered = new Counter({
      name: 'bot_staff_redeliveries_total',
      help: 'Deliveries restarted by platform staff, one by one or by redrive jobs; rate() is redeliveries per second',
      registers: [registry],
    });
    this.autoRedelivered = new Counter({
      name: 'bot_auto_redeliveries_total',
      help: "Dead letters redelivered automatically after their bot's receiver recovered (self-healing dead letters)",
      registers: [registry],
    });
    this.deadLetters = new Gauge({
      name: 'bot_webhook_dead_letters',
      help: 'Dead letters in the delivery log, by error class of their last attempt (every class, 0 when it has none)',
      labelNames: ['error_class'],
      registers: [registry],
      async collect() {
        const rows = await delivery.deadLettersByClass(null, null).catch(() => null);
        if (!rows) return;
        // Every class reads 0 when it has none, so a redrive shows the count fall to zero, not vanish.
        const counts = new Map<string, number>(DEAD_LETTER_CLASSES.map((errorClass) => [errorClass, 0]));
        for (const row of rows) counts.set(row.error_class ?? 'none', row.count);
        this.reset();
        for (const [errorClass, count] of counts) this.set({ error_class: errorClass }, count);
      },
    });
    this.runningJobs = new Gauge({
      name: 'bot_redrive_jobs_running',
      help: 'Redrive jobs running, platform-wide',
      registers: [registry],
      async collect() {
        const running = await jobs.countRunning().catch(() => null);
        if (running !== null) this.set(running);
      },
    });
  }
}
