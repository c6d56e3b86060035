import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BotErrors } from '../../bot-errors';
import { FileStorage, ObjectToDownload, ObjectToUpload, StoredObject, UploadTarget } from './file-storage';
import { encodeKeySegment, isStorageKey } from './storage-keys';
import { UrlSigner } from './url-signer';

/** Route of bot-api that receives (PUT) and serves (GET) the disk driver's bytes. */
export const STORAGE_ROUTE = 'api/v1/bots/files/storage';

const ABORTED = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'ECONNABORTED']);

export interface DiskStorageOptions {
  directory: string;
  publicBaseUrl: string;
  signingKey: string;
}

/**
 * Bytes on a local directory (a persistent volume), received and served by bot-api itself through
 * signed, expiring URLs. A received upload is written to a temporary file and renamed into place
 * only once every check passed, so a refused upload leaves nothing behind.
 */
export class DiskFileStorage extends FileStorage {
  readonly driver = 'disk' as const;
  readonly signer: UrlSigner;
  private readonly root: string;
  private readonly baseUrl: string;

  constructor(options: DiskStorageOptions) {
    super();
    this.root = resolve(options.directory);
    this.baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
    this.signer = new UrlSigner(options.signingKey);
  }

  async uploadTarget(object: ObjectToUpload, expiresAt: Date): Promise<UploadTarget> {
    const expires = Math.ceil(expiresAt.getTime() / 1000);
    const signature = this.signer.sign({
      method: 'PUT',
      key: object.key,
      size: object.size,
      type: object.type,
      expires,
    });
    const query = new URLSearchParams({
      size: String(object.size),
      type: object.type,
      expires: String(expires),
      signature,
    });
    return {
      url: `${this.baseUrl}/${STORAGE_ROUTE}/${encodeKeySegment(object.key)}?${query}`,
      headers: { 'Content-Type': object.type, 'Content-Length': String(object.size) },
    };
  }

  async downloadUrl(object: ObjectToDownload, expiresAt: Date): Promise<string> {
    const expires = Math.ceil(expiresAt.getTime() / 1000);
    const signature = this.signer.sign({ method: 'GET', key: object.key, size: null, type: object.type, expires });
    const query = new URLSearchParams({ type: object.type, expires: String(expires), signature });
    return `${this.baseUrl}/${STORAGE_ROUTE}/${encodeKeySegment(object.key)}?${query}`;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { size: info.size, contentType: null } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    await stat(path);
    return createReadStream(path);
  }

  write(object: ObjectToUpload, bytes: Buffer): Promise<void> {
    return this.receive(object.key, object.size, Readable.from([bytes]), async () => {});
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Streams exactly `size` bytes into a temporary file, never holding them in memory: more bytes stop
   * the transfer at once, fewer are refused at the end. `commit` runs once the bytes are complete and
   * decides (it may throw); only then is the file moved under its key. On any failure nothing remains.
   */
  async receive(key: string, size: number, body: Readable, commit: () => Promise<void>): Promise<void> {
    const final = this.pathOf(key);
    const temporary = join(this.root, '.incoming', randomUUID());
    await mkdir(dirname(temporary), { recursive: true });
    let received = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received > size)
          done(BotErrors.error('UPLOAD_SIZE_MISMATCH', `The upload carries more than ${size} bytes`));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, cap, createWriteStream(temporary, { flags: 'wx' })).catch((error: NodeJS.ErrnoException) => {
        // A client that hangs up mid-body sent fewer bytes than declared: its refusal, not a server fault.
        if (ABORTED.has(error.code ?? '') || error.message === 'aborted') {
          throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `The upload ended after ${received} of ${size} bytes`);
        }
        throw error;
      });
      if (received !== size) {
        throw BotErrors.error('UPLOAD_SIZE_MISMATCH', `The upload carried ${received} bytes, ${size} were declared`);
      }
      await commit();
      await mkdir(dirname(final), { recursive: true });
      await rename(temporary, final);
    } finally {
      await rm(temporary, { force: true });
    }
  }

  private pathOf(key: string): string {
    // Keys are checked against their one shape, so no key can climb out of the directory.
    if (!isStorageKey(key)) throw BotErrors.notFound('File');
    return join(this.root, key);
  }
}
