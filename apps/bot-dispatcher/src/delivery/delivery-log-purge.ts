import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryDomain, type LogDaysOutcome } from '@app/bot-delivery';

/**
 * Keeps the delivery log bounded by DELIVERY_LOG_RETENTION_DAYS, hourly, once per cluster (periodic
 * work): the days whose every delivery is older than the retention go whole, with their attempts, unless
 * one of their deliveries changed within it (a redelivery, an attempt); such a day is looked at again
 * the next hour. No DELETE runs over the log (docs/operations.md, "Growth of the delivery tables").
 */
@Injectable()
export class DeliveryLogPurge implements PeriodicTask {
  private readonly logger = new Logger(DeliveryLogPurge.name);
  readonly everyMs = 3_600_000;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly delivery: DeliveryDomain,
  ) {}

  run(): Promise<LogDaysOutcome> {
    return this.purge();
  }

  async purge(): Promise<LogDaysOutcome> {
    const outcome = await this.delivery.dropExpiredLogDays(this.config.DELIVERY_LOG_RETENTION_DAYS);
    if (outcome.dropped.length > 0) this.logger.log(`dropped the delivery log of ${outcome.dropped.join(', ')}`);
    if (outcome.kept.length > 0) {
      this.logger.log(`kept ${outcome.kept.join(', ')} past the retention: a delivery of theirs changed within it`);
    }
    return outcome;
  }
}
