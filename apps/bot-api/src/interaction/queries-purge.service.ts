import { Injectable } from '@nestjs/common';
import { PeriodicSweep } from '@app/coordination';
import { Database } from '@app/platform';
import { BotConfig } from '../config/bot.config';
import { CallbackQueriesStore, InlineQueriesStore } from './interaction-queries.store';

/**
 * Callback and inline queries are answerable for seconds and read by the app shortly after; they are
 * kept as long as Updates (UPDATES_RETENTION_HOURS), then dropped at the Updates' purge interval,
 * once per cluster (periodic work).
 */
@Injectable()
export class QueriesPurgeService extends PeriodicSweep {
  constructor(
    private readonly database: Database,
    private readonly callbacks: CallbackQueriesStore,
    private readonly inline: InlineQueriesStore,
    private readonly config: BotConfig,
  ) {
    super(config.UPDATES_PURGE_INTERVAL_MS, { name: 'queries purge' });
  }

  protected async pass(): Promise<number> {
    const hours = this.config.UPDATES_RETENTION_HOURS;
    return (
      (await this.callbacks.purgeOlderThan(this.database, hours)) +
      (await this.inline.purgeOlderThan(this.database, hours))
    );
  }
}
