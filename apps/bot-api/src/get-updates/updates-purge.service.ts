import { Injectable } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { BotConfig } from '../config/bot.config';
import { PollingService } from './polling.service';

/** Drops Updates past their retention, every UPDATES_PURGE_INTERVAL_MS, once per cluster (periodic work). */
@Injectable()
export class UpdatesPurgeService implements PeriodicTask {
  readonly everyMs: number;

  constructor(
    private readonly polling: PollingService,
    config: BotConfig,
  ) {
    this.everyMs = config.UPDATES_PURGE_INTERVAL_MS;
  }

  run(): Promise<unknown> {
    return this.polling.purgeExpired();
  }
}
