import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BotCredentialsService } from './bot-credentials.service';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Hourly sweep of unread one-time tokens past their 7 days; every instance may run it, it is idempotent. */
@Injectable()
export class OneTimeTokenPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OneTimeTokenPurgeService.name);
  private timer?: NodeJS.Timeout;

  constructor(private readonly credentials: BotCredentialsService) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async sweep(): Promise<void> {
    try {
      const purged = await this.credentials.purgeExpired();
      if (purged > 0) this.logger.log(`destroyed ${purged} expired one-time token(s)`);
    } catch (error) {
      this.logger.warn(`one-time token purge failed: ${(error as Error).message}`);
    }
  }
}
