import { Injectable } from '@nestjs/common';
import { BotConfig } from '../config/bot.config';
import type { StoredFile } from './entities/file.entity';
import { FileStorage } from './storage/file-storage';

export interface FileLink {
  url: string;
  expiresAt: Date;
}

/**
 * Temporary download URLs of stored files. Reads (getFile, message lists, send results) sign for
 * FILE_DOWNLOAD_URL_TTL_SECONDS when they answer; Updates are written once and delivered later
 * (webhook retries, getUpdates within the retention), so theirs last FILE_UPDATE_URL_TTL_SECONDS.
 */
@Injectable()
export class FileLinksService {
  constructor(
    private readonly storage: FileStorage,
    private readonly config: BotConfig,
  ) {}

  forRead(file: StoredFile): Promise<FileLink> {
    return this.link(file, this.config.FILE_DOWNLOAD_URL_TTL_SECONDS);
  }

  forUpdate(file: StoredFile): Promise<FileLink> {
    return this.link(file, this.config.FILE_UPDATE_URL_TTL_SECONDS);
  }

  /** Read links of many files at once, by file id. */
  async forReadAll(files: Iterable<StoredFile>): Promise<Map<string, string>> {
    const unique = [...new Map([...files].map((file) => [file.id, file])).values()];
    const links = await Promise.all(unique.map(async (file) => [file.id, (await this.forRead(file)).url] as const));
    return new Map(links);
  }

  private async link(file: StoredFile, ttlSeconds: number): Promise<FileLink> {
    const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
    const url = await this.storage.downloadUrl({ key: file.storageKey, type: file.mimeType }, expiresAt);
    return { url, expiresAt };
  }
}
