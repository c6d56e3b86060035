import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
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

/** A signed URL's query as it arrived, before validation: any value may be missing or repeated. */
export type RawSignedQuery = Partial<Record<'type' | 'size' | 'expires' | 'signature', unknown>>;

/**
 * The disk driver's own byte routes: the signed PUT of step 2 and the signed GET of download URLs.
 * Each refusal happens before a byte is kept; with another driver these routes do not exist (404).
 */
@Injectable()
export class FileTransferService {
  constructor(
    private readonly database: Database,
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
    const key = this.signedKey('PUT', segment, query);
    if (!key) throw BotErrors.error('FILE_URL_INVALID');
    const size = Number(query.size);
    if (Number(query.expires) * 1000 <= Date.now()) throw BotErrors.error('FILE_URL_EXPIRED');
    if (mediaTypeOf(headers['content-type']) !== query.type) {
      throw BotErrors.error('UPLOAD_TYPE_MISMATCH', `Send Content-Type: ${query.type}`);
    }
    if (headers['content-length'] === undefined || Number(headers['content-length']) !== size) {
      throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `Send Content-Length: ${size}`);
    }
    this.refuseUnusable(await this.uploads.byKey(this.database, key));
    await disk.receive(key, size, body, async () => {
      if (await this.uploads.claimUpload(this.database, key)) return;
      this.refuseUnusable(await this.uploads.byKey(this.database, key));
      throw BotErrors.error('UPLOAD_ALREADY_USED');
    });
  }

  async download(segment: string, query: SignedDownloadQuery): Promise<Download> {
    const disk = this.disk();
    const key = this.signedKey('GET', segment, query);
    if (!key) throw BotErrors.error('FILE_URL_INVALID');
    const expires = Number(query.expires);
    if (expires * 1000 <= Date.now()) throw BotErrors.error('FILE_URL_EXPIRED');
    const stored = await disk.stat(key);
    if (!stored) throw BotErrors.notFound('File');
    return { body: await disk.read(key), size: stored.size, type: query.type, expires };
  }

  /**
   * The storage key a URL of the disk driver grants `method` on, when its signature binds the key and
   * every field of the query; null otherwise (or with another driver). An HMAC, no I/O.
   */
  signedKey(method: 'PUT' | 'GET', segment: string, query: RawSignedQuery): string | null {
    if (!(this.storage instanceof DiskFileStorage)) return null;
    const { type, size, expires, signature } = query;
    if (typeof type !== 'string' || typeof expires !== 'string' || typeof signature !== 'string') return null;
    if (method === 'PUT' && typeof size !== 'string') return null;
    const key = decodeKeySegment(segment);
    const grant = {
      method,
      key: key ?? '',
      size: method === 'PUT' ? Number(size) : null,
      type,
      expires: Number(expires),
    };
    return key && this.storage.signer.verify(grant, signature) ? key : null;
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
