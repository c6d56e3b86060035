import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { FieldProblem } from '@app/envelope';
import { Database, SqlTarget, Transaction } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { BotConfig } from '../config/bot.config';
import { CompleteUploadDto, UploadCredentialsDto } from './dto/upload.dto';
import { FileInfoView, UploadCredentialsView } from './dto/file.view';
import type { StoredFile } from './entities/file.entity';
import { FileLinksService } from './file-links.service';
import { FileUploadsStore, ownedBy, PendingUpload, UploadDeclaration } from './file-uploads.store';
import { FileReadingBot, FilesService } from './files.service';
import { FilesStore } from './files.store';
import { probeMedia } from './media-probe';
import { FileStorage } from './storage/file-storage';
import { FileOwner, keyBelongsTo, newStorageKey } from './storage/storage-keys';

function declarationOf(dto: UploadCredentialsDto): UploadDeclaration {
  return { fileName: dto.fileName, fileSize: dto.fileSize, mimeType: dto.fileType };
}

function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/**
 * The three-step upload (spec 4.2 "Upload") for bots and end users alike: credentials record a
 * pending upload under a fresh key, the bytes go to the storage driver's URL, and complete turns the
 * checked bytes into a file once.
 */
@Injectable()
export class FileUploadsService {
  constructor(
    private readonly database: Database,
    private readonly storage: FileStorage,
    private readonly uploads: FileUploadsStore,
    private readonly files: FilesService,
    private readonly fileRows: FilesStore,
    private readonly links: FileLinksService,
    private readonly config: BotConfig,
  ) {}

  async credentials(owner: FileOwner, dto: UploadCredentialsDto): Promise<UploadCredentialsView> {
    const key = newStorageKey(owner);
    const expiresAt = new Date(Date.now() + this.config.FILE_UPLOAD_TTL_SECONDS * 1000);
    await this.database.transaction(async (tx) => {
      await this.reserve(tx, owner, dto.fileSize);
      await this.uploads.insert(tx, owner, key, declarationOf(dto), expiresAt);
    });
    const target = await this.storage.uploadTarget({ key, size: dto.fileSize, type: dto.fileType }, expiresAt);
    return { uploadUrl: target.url, key, headers: target.headers, expiresAt: unixSeconds(expiresAt) };
  }

  /**
   * Checks the stored bytes against the declaration and makes the file. The bytes are read (size,
   * type, media facts) before the transaction; the transaction then locks the upload, so of two
   * concurrent completes one makes the file and the other answers 409.
   */
  async complete(owner: FileOwner, dto: CompleteUploadDto): Promise<FileInfoView> {
    const declared = declarationOf(dto);
    const upload = await this.pendingOf(owner, dto.key);
    this.checkDeclaration(upload, declared);
    if (upload.expiresAt.getTime() <= Date.now()) {
      await this.storage.delete(upload.storageKey);
      throw BotErrors.error('UPLOAD_EXPIRED');
    }
    const stored = await this.storage.stat(upload.storageKey);
    if (!stored) throw BotErrors.error('UPLOAD_NOT_RECEIVED');
    if (stored.size !== declared.fileSize) {
      await this.storage.delete(upload.storageKey);
      throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `${stored.size} bytes were stored, ${declared.fileSize} declared`);
    }
    if (stored.contentType !== null && stored.contentType.toLowerCase() !== declared.mimeType) {
      await this.storage.delete(upload.storageKey);
      throw BotErrors.error('UPLOAD_TYPE_MISMATCH', `Stored as ${stored.contentType}, declared ${declared.mimeType}`);
    }
    const facts = await probeMedia(await this.storage.read(upload.storageKey), declared.mimeType, declared.fileSize);
    const file = await this.database.transaction(async (tx) => {
      const locked = await this.uploads.byKey(tx, upload.storageKey, true);
      if (!locked || locked.completedAt) throw BotErrors.error('CONFLICT', 'The upload was already completed');
      await this.uploads.markCompleted(tx, locked.id);
      return this.fileRows.create(tx, owner, upload.storageKey, declared, facts);
    });
    return this.info(file);
  }

  /**
   * A file from bytes received with the call itself (Telegram's multipart InputFile): the declaration
   * is checked by the same rules as upload-credentials (name, size limit, type allow-list), the bytes
   * go through the storage driver under the owner's key, and the file is made in one transaction.
   */
  async storeBytes(owner: FileOwner, dto: UploadCredentialsDto, bytes: Buffer): Promise<StoredFile> {
    const declared = declarationOf(dto);
    if (bytes.length !== declared.fileSize) {
      throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `${bytes.length} bytes were sent, ${declared.fileSize} declared`);
    }
    // Checked before the bytes are written, and again with the file's row, where parallel calls queue.
    await this.reserve(this.database, owner, declared.fileSize);
    const key = newStorageKey(owner);
    await this.storage.write({ key, size: declared.fileSize, type: declared.mimeType }, bytes);
    try {
      const facts = await probeMedia(await this.storage.read(key), declared.mimeType, declared.fileSize);
      return await this.database.transaction(async (tx) => {
        await this.reserve(tx, owner, declared.fileSize);
        return this.fileRows.create(tx, owner, key, declared, facts);
      });
    } catch (error) {
      await this.storage.delete(key);
      throw error;
    }
  }

  /** The bytes of a file the bot may read (its own or one it received), streamed from the driver. */
  async readForBot(bot: FileReadingBot, fileId: string): Promise<{ file: StoredFile; body: Readable }> {
    const file = await this.files.visibleToBot(this.database, fileId, bot);
    return { file, body: await this.storage.read(file.storageKey) };
  }

  /** getFile: the bot's own files and the files it received. */
  async getFile(bot: FileReadingBot, fileId: string): Promise<FileInfoView> {
    return this.info(await this.files.visibleToBot(this.database, fileId, bot));
  }

  /**
   * A bot's files and pending uploads plus `bytes` must fit BOT_STORAGE_QUOTA_BYTES. Inside a transaction
   * the bot's reservations queue behind each other until it commits, so parallel uploads cannot overshoot.
   * People's uploads are bounded by their rate limits and the unreferenced-file purge instead.
   */
  private async reserve(on: SqlTarget, owner: FileOwner, bytes: number): Promise<void> {
    if (owner.kind !== 'bot') return;
    // Outside a transaction the lock would end with its statement: the check alone is an early refusal.
    if (on instanceof Transaction) await this.fileRows.lockBotStorage(on, owner.botId);
    const held =
      (await this.fileRows.bytesOfBot(on, owner.botId)) + (await this.uploads.pendingBytesOfBot(on, owner.botId));
    if (held + bytes > this.config.BOT_STORAGE_QUOTA_BYTES) {
      throw BotErrors.error(
        'STORAGE_QUOTA_EXCEEDED',
        `The bot holds ${held} bytes; ${bytes} more would pass its quota of ${this.config.BOT_STORAGE_QUOTA_BYTES}`,
      );
    }
  }

  private async pendingOf(owner: FileOwner, key: string): Promise<PendingUpload> {
    // The key's prefix names its owner, so a foreign key is refused like an unknown one.
    if (!keyBelongsTo(key, owner)) throw BotErrors.notFound('Upload');
    const upload = await this.uploads.byKey(this.database, key);
    if (upload && ownedBy(upload, owner)) {
      if (upload.completedAt) throw BotErrors.error('CONFLICT', 'The upload was already completed');
      return upload;
    }
    // A completed upload's row is purged after its expiry; the file still says the key was used.
    if (await this.fileRows.existsForKey(this.database, key)) {
      throw BotErrors.error('CONFLICT', 'The upload was already completed');
    }
    throw BotErrors.notFound('Upload');
  }

  private checkDeclaration(upload: PendingUpload, declared: UploadDeclaration): void {
    const problems = [
      upload.fileName !== declared.fileName && { field: 'fileName', problem: 'differs from upload-credentials' },
      upload.fileSize !== declared.fileSize && { field: 'fileSize', problem: 'differs from upload-credentials' },
      upload.mimeType !== declared.mimeType && { field: 'fileType', problem: 'differs from upload-credentials' },
    ].filter((problem): problem is FieldProblem => problem !== false);
    if (problems.length > 0) throw BotErrors.invalid('The declaration differs from upload-credentials', problems);
  }

  private async info(file: StoredFile): Promise<FileInfoView> {
    const link = await this.links.forRead(file);
    return {
      file_id: file.id,
      file_name: file.fileName,
      mime_type: file.mimeType,
      file_size: file.fileSize,
      width: file.width,
      height: file.height,
      duration: file.duration,
      url: link.url,
      url_expires_at: unixSeconds(link.expiresAt),
    };
  }
}
