import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
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
export class FileRetentionPurgeService implements PeriodicTask, OnApplicationShutdown {
  private readonly logger = new Logger(FileRetentionPurgeService.name);
  private running?: Promise<number>;
  readonly everyMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly files: FilesStore,
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

  /** One pass; answers how many unreferenced files were removed. */
  async sweep(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.purge()
      .catch((error: Error) => {
        this.logger.warn(`unreferenced file purge failed: ${error.message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async purge(): Promise<number> {
    const purged = await purgeStoredBytes(this.dataSource, this.storage, {
      lock: (manager, limit) =>
        this.files.lockUnreferenced(manager, this.config.FILE_UNREFERENCED_RETENTION_HOURS, limit),
      deleteByIds: (manager, ids) => this.files.deleteByIds(manager, ids),
    });
    if (purged > 0) this.logger.log(`purged ${purged} unreferenced file(s)`);
    return purged;
  }
}
