import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DeliveryStore } from '@app/webhook-queue';
import { DispatcherConfig } from '../config/dispatcher.config';

const PURGE_INTERVAL_MS = 3_600_000;
const PURGE_BATCH = 5_000;

/**
 * Keeps the delivery log bounded: finished deliveries older than DELIVERY_LOG_RETENTION_DAYS go, in
 * batches so no single DELETE holds locks for long. Any replica may run it; the DELETE is idempotent.
 */
@Injectable()
export class DeliveryLogPurge implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryLogPurge.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly store: DeliveryStore,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async purge(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const deleted = await this.store.purgeFinished(this.config.DELIVERY_LOG_RETENTION_DAYS, PURGE_BATCH);
        total += deleted;
        if (deleted < PURGE_BATCH) return total;
      }
    } catch (error) {
      this.logger.warn(`delivery log purge failed: ${(error as Error).message}`);
      return total;
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}
