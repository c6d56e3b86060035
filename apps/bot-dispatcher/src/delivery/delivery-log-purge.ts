import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { DeliveryDomain } from '@app/bot-delivery';
import { DispatcherConfig } from '../config/dispatcher.config';

const PURGE_BATCH = 5_000;

/**
 * Keeps the delivery log bounded: finished deliveries older than DELIVERY_LOG_RETENTION_DAYS go, in
 * batches so no single DELETE holds locks for long. Hourly, once per cluster (periodic work).
 */
@Injectable()
export class DeliveryLogPurge implements PeriodicTask {
  private readonly logger = new Logger(DeliveryLogPurge.name);
  readonly everyMs = 3_600_000;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly delivery: DeliveryDomain,
  ) {}

  run(): Promise<number> {
    return this.purge();
  }

  async purge(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.delivery.purgeFinished(this.config.DELIVERY_LOG_RETENTION_DAYS, PURGE_BATCH);
        total += deleted;
        if (deleted < PURGE_BATCH) return total;
      }
    } catch (error) {
      this.logger.warn(`delivery log purge failed: ${(error as Error).message}`);
      return total;
    }
  }
}
