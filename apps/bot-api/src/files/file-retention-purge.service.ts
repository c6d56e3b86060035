import { Injectable } from '@nestjs/common';
import { PeriodicSweep } from '@app/coordination';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly files: FilesStore,
    private readonly config: BotConfig,
  ) {
    super(config.FILE_UPLOAD_PURGE_INTERVAL_MS, { name: 'unreferenced file purge', removed: 'unreferenced file(s)' });
  }

  protected pass(): Promise<number> {
    return purgeStoredBytes(this.dataSource, this.storage, {
      lock: (manager, limit) =>
        this.files.lockUnreferenced(manager, this.config.FILE_UNREFERENCED_RETENTION_HOURS, limit),
      deleteByIds: (manager, ids) => this.files.deleteByIds(manager, ids),
    });
  }
}
