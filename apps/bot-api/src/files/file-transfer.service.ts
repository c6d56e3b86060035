import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { BotErrors } from '../bot-errors';
import { SignedDownloadQuery, SignedUploadQuery } from './dto/upload.dto';
import { FileUploadsStore, PendingUpload } from './file-uploads.store';
import { DiskFileStorage } from './storage/disk-file-storage';
import { FileStorage } from './storage/file-storage';
import { decodeKeySegment } from './storage/storage-keys';

export interface Download {
  body: Readable;
  size: number;
  type: string;
  expires: number;
}

/** The media type of a Content-Type header, without parameters, lowercased. */
function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * The disk driver's own byte routes: the signed PUT of step 2 and the signed GET of download URLs.
 * Each refusal happens before a byte is kept; with another driver these routes do not exist (404).
 */
@Injectable()
export class FileTransferService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storage: FileStorage,
    private readonly uploads: FileUploadsStore,
  ) {}

  async receive(
    segment: string,
    query: SignedUploadQuery,
    headers: IncomingHttpHeaders,
    body: Readable,
  ): Promise<void> {
    const disk = this.disk();
    const key = decodeKeySegment(segment);
    const size = Number(query.size);
    const expires = Number(query.expires);
    if (!key || !disk.signer.verify({ method: 'PUT', key, size, type: query.type, expires }, query.signature)) {
      throw BotErrors.error('FILE_URL_INVALID');
    }
    if (expires * 1000 <= Date.now()) throw BotErrors.error('FILE_URL_EXPIRED');
    if (mediaTypeOf(headers['content-type']) !== query.type) {
      throw BotErrors.error('UPLOAD_TYPE_MISMATCH', `Send Content-Type: ${query.type}`);
    }
    if (headers['content-length'] === undefined || Number(headers['content-length']) !== size) {
      throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `Send Content-Length: ${size}`);
    }
    this.refuseUnusable(await this.uploads.byKey(this.dataSource.manager, key));
    await disk.receive(key, size, body, async () => {
      if (await this.uploads.claimUpload(this.dataSource.manager, key)) return;
      this.refuseUnusable(await this.uploads.byKey(this.dataSource.manager, key));
      throw BotErrors.error('UPLOAD_ALREADY_USED');
    });
  }

  async download(segment: string, query: SignedDownloadQuery): Promise<Download> {
    const disk = this.disk();
    const key = decodeKeySegment(segment);
    const expires = Number(query.expires);
    if (!key || !disk.signer.verify({ method: 'GET', key, size: null, type: query.type, expires }, query.signature)) {
      throw BotErrors.error('FILE_URL_INVALID');
    }
    if (expires * 1000 <= Date.now()) throw BotErrors.error('FILE_URL_EXPIRED');
    const stored = await disk.stat(key);
    if (!stored) throw BotErrors.notFound('File');
    return { body: await disk.read(key), size: stored.size, type: query.type, expires };
  }

  /** An upload URL works once, before its expiry, for an upload that still exists. */
  private refuseUnusable(upload: PendingUpload | null): void {
    if (!upload) throw BotErrors.notFound('Upload');
    if (upload.uploadedAt || upload.completedAt) throw BotErrors.error('UPLOAD_ALREADY_USED');
    if (upload.expiresAt.getTime() <= Date.now()) throw BotErrors.error('FILE_URL_EXPIRED');
  }

  private disk(): DiskFileStorage {
    if (!(this.storage instanceof DiskFileStorage)) throw BotErrors.notFound('Route');
    return this.storage;
  }
}
