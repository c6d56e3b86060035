import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { FilesService } from './files.service';
import { FileStorage } from './storage/file-storage';

const BATCH = 100;

/**
 * Periodic removal of files no message references once FILE_UNREFERENCED_RETENTION_HOURS have passed
 * since their upload (uploaded and never sent, or the send was refused): their bytes, then their rows,
 * on the timer of the upload purge. Every instance may run it: rows another instance holds are skipped.
 */
@Injectable()
export class FileRetentionPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FileRetentionPurgeService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly files: FilesService,
    private readonly config: BotConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.FILE_UPLOAD_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
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
    let purged = 0;
    for (;;) {
      const batch = await this.dataSource.transaction(async (manager) => {
        const unreferenced = await this.files.lockUnreferenced(
          manager,
          this.config.FILE_UNREFERENCED_RETENTION_HOURS,
          BATCH,
        );
        for (const file of unreferenced) await this.storage.delete(file.storageKey);
        await this.files.deleteByIds(
          manager,
          unreferenced.map((file) => file.id),
        );
        return unreferenced.length;
      });
      purged += batch;
      if (batch < BATCH) break;
    }
    if (purged > 0) this.logger.log(`purged ${purged} unreferenced file(s)`);
    return purged;
  }
}
