import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { PeriodicSweep } from '@app/coordination';
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
export class FileUploadPurgeService extends PeriodicSweep {
  constructor(
    private readonly database: Database,
    private readonly storage: FileStorage,
    private readonly uploads: FileUploadsStore,
    private readonly config: BotConfig,
  ) {
    super(config.FILE_UPLOAD_PURGE_INTERVAL_MS, { name: 'file upload purge', removed: 'abandoned upload(s)' });
  }

  protected async pass(): Promise<number> {
    const grace = Math.min(this.config.FILE_UPLOAD_TTL_SECONDS, 300);
    const purged = await purgeStoredBytes(this.database, this.storage, {
      lock: (tx, limit) => this.uploads.lockAbandoned(tx, grace, limit),
      deleteByIds: (tx, ids) => this.uploads.deleteByIds(tx, ids),
    });
    await this.uploads.deleteCompletedBefore(this.database, new Date(Date.now() - grace * 1000));
    return purged;
  }
}
