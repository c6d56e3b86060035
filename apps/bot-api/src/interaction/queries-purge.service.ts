import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { CallbackQueriesStore, InlineQueriesStore } from './interaction-queries.store';

/**
 * Callback and inline queries are answerable for seconds and read by the app shortly after; they are
 * kept as long as Updates (UPDATES_RETENTION_HOURS), then dropped on the Updates' purge timer.
 */
@Injectable()
export class QueriesPurgeService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(QueriesPurgeService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly callbacks: CallbackQueriesStore,
    private readonly inline: InlineQueriesStore,
    private readonly config: BotConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.purge().catch((error: Error) => this.logger.warn(`purge of old queries failed: ${error.message}`));
    }, this.config.UPDATES_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    const hours = this.config.UPDATES_RETENTION_HOURS;
    const manager = this.dataSource.manager;
    return (await this.callbacks.purgeOlderThan(manager, hours)) + (await this.inline.purgeOlderThan(manager, hours));
  }
}
