import { Inject, Injectable } from '@nestjs/common';
import { METRICS_REGISTRY } from '@app/platform';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { UPDATE_TYPES } from '../update-types';

/** Update outbox and long-poll figures for /metrics; every Update type counts from 0. */
@Injectable()
export class UpdatesMetrics {
  readonly written: Counter<'type'>;
  readonly waiting: Gauge;
  readonly returned: Histogram;

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.written = new Counter({
      name: 'bot_updates_written_total',
      help: 'Updates written to the outbox, by type',
      labelNames: ['type'],
      registers: [registry],
    });
    for (const type of UPDATE_TYPES) this.written.inc({ type }, 0);
    this.waiting = new Gauge({
      name: 'bot_get_updates_waiting',
      help: 'getUpdates calls of this instance currently waiting for an Update',
      registers: [registry],
    });
    this.returned = new Histogram({
      name: 'bot_get_updates_batch_size',
      help: 'Number of Updates returned per getUpdates call',
      buckets: [0, 1, 5, 10, 25, 50, 100],
      registers: [registry],
    });
  }
}
