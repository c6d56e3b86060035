import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { BotConfig } from '../config/bot.config';
import { DAYS_AHEAD, DeliveryDomain } from '@app/bot-delivery';

/**
 * The day partitions of the delivery tables, once per cluster every hour (periodic work):
 * - a week of days ahead of today: an Update, a delivery or an attempt of a day with no partition could
 *   not be written, so a week of missed runs passes before one fails;
 * - the retention of Updates: a day of `updates` whose every row is older than UPDATES_RETENTION_HOURS
 *   is dropped whole, instead of a DELETE of its rows. getUpdates never returns an Update past the
 *   retention, so a day kept until its last row is past it changes no answer.
 */
@Injectable()
export class DeliveryPartitionsTask implements PeriodicTask {
  private readonly logger = new Logger(DeliveryPartitionsTask.name);
  readonly everyMs = 3_600_000;

  constructor(
    private readonly delivery: DeliveryDomain,
    private readonly config: BotConfig,
  ) {}

  /** One run; answers the partitions it created and the ones it dropped. */
  async run(): Promise<{ created: number; dropped: string[] }> {
    const created = await this.delivery.createDaysAhead();
    if (created > 0)
      this.logger.log(`created ${created} day partition(s) of the delivery tables, ${DAYS_AHEAD} days ahead`);
    const dropped = await this.delivery.dropExpiredUpdateDays(this.config.UPDATES_RETENTION_HOURS);
    if (dropped.length > 0) this.logger.log(`dropped the expired Updates of ${dropped.join(', ')}`);
    return { created, dropped };
  }
}
