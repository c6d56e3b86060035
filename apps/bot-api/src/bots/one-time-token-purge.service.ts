import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { BotCredentialsService } from './bot-credentials.service';

/** Hourly sweep of unread one-time tokens past their 7 days, once per cluster (periodic work). */
@Injectable()
export class OneTimeTokenPurgeService implements PeriodicTask {
  private readonly logger = new Logger(OneTimeTokenPurgeService.name);
  readonly everyMs = 60 * 60 * 1000;

  constructor(private readonly credentials: BotCredentialsService) {}

  async run(): Promise<void> {
    const purged = await this.credentials.purgeExpired();
    if (purged > 0) this.logger.log(`destroyed ${purged} expired one-time token(s)`);
  }
}
