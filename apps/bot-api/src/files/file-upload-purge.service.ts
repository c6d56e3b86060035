import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { FileUploadsStore } from './file-uploads.store';
import { FileStorage } from './storage/file-storage';
import { purgeStoredBytes } from './stored-bytes-purge';

/**
 * Periodic removal of uploads never completed, once expired: their bytes, then their rows. A PUT that
 * started just before the expiry may still be writing to an S3 store, so rows wait a grace period of
 * the upload lifetime (at most 5 minutes) past expiry. It runs once per cluster (periodic work); a
 * direct call meanwhile skips the rows another caller holds.
 */
@Injectable()
export class FileUploadPurgeService implements PeriodicTask, OnApplicationShutdown {
  private readonly logger = new Logger(FileUploadPurgeService.name);
  private running?: Promise<number>;
  readonly everyMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly uploads: FileUploadsStore,
    private readonly config: BotConfig,
  ) {
    this.everyMs = config.FILE_UPLOAD_PURGE_INTERVAL_MS;
  }

  run(): Promise<number> {
    return this.sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }

  /** One pass; answers how many abandoned uploads were removed. */
  async sweep(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.purge()
      .catch((error: Error) => {
        this.logger.warn(`file upload purge failed: ${error.message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async purge(): Promise<number> {
    const grace = Math.min(this.config.FILE_UPLOAD_TTL_SECONDS, 300);
    const purged = await purgeStoredBytes(this.dataSource, this.storage, {
      lock: (manager, limit) => this.uploads.lockAbandoned(manager, grace, limit),
      deleteByIds: (manager, ids) => this.uploads.deleteByIds(manager, ids),
    });
    await this.uploads.deleteCompletedBefore(this.dataSource.manager, new Date(Date.now() - grace * 1000));
    if (purged > 0) this.logger.log(`purged ${purged} abandoned upload(s)`);
    return purged;
  }
}
