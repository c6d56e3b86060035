import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { PeriodicSweep } from '@app/coordination';
import { BotConfig } from '../config/bot.config';
import { FilesStore } from './files.store';
import { FileStorage } from './storage/file-storage';
import { purgeStoredBytes } from './stored-bytes-purge';

/**
 * Periodic removal of files no message references once FILE_UNREFERENCED_RETENTION_HOURS have passed
 * since their upload (uploaded and never sent, or the send was refused): their bytes, then their rows,
 * at the upload purge's interval, once per cluster (periodic work); a direct call meanwhile skips the
 * rows another caller holds.
 */
@Injectable()
export class FileRetentionPurgeService extends PeriodicSweep {
  constructor(
    private readonly database: Database,
    private readonly storage: FileStorage,
    private readonly files: FilesStore,
    private readonly config: BotConfig,
  ) {
    super(config.FILE_UPLOAD_PURGE_INTERVAL_MS, { name: 'unreferenced file purge', removed: 'unreferenced file(s)' });
  }

  protected pass(): Promise<number> {
    return purgeStoredBytes(this.database, this.storage, {
      lock: (tx, limit) => this.files.lockUnreferenced(tx, this.config.FILE_UNREFERENCED_RETENTION_HOURS, limit),
      deleteByIds: (tx, ids) => this.files.deleteByIds(tx, ids),
    });
  }
}
