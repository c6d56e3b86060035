import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { BotConfig } from '../config/bot.config';
import { PollingService } from './polling.service';

/** Drops Updates past their retention on a timer; any instance may run it, the DELETE is idempotent. */
@Injectable()
export class UpdatesPurgeService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(UpdatesPurgeService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly polling: PollingService,
    private readonly config: BotConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.polling
        .purgeExpired()
        .catch((error: Error) => this.logger.warn(`purge of old Updates failed: ${error.message}`));
    }, this.config.UPDATES_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}
