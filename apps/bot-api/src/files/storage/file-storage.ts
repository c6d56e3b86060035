import type { Readable } from 'node:stream';

/** Where and how the bytes of one pending upload are sent (step 2 of the upload). */
export interface UploadTarget {
  url: string;
  /** Headers the PUT must carry exactly as given: they are bound into the URL's signature. */
  headers: Record<string, string>;
}

export interface StoredObject {
  size: number;
  contentType: string | null;
}

export interface ObjectToUpload {
  key: string;
  size: number;
  type: string;
}

export interface ObjectToDownload {
  key: string;
  type: string;
}

/**
 * Where file bytes live. One implementation per driver, chosen by FILE_STORAGE_DRIVER; services use
 * only this interface. URLs are signed for the caller; nothing here knows about owners or rows.
 */
export abstract class FileStorage {
  abstract readonly driver: 'disk' | 's3';

  /** A URL that accepts exactly these bytes (size and type) for this key until `expiresAt`. */
  abstract uploadTarget(object: ObjectToUpload, expiresAt: Date): Promise<UploadTarget>;

  /** A URL that serves the object's bytes with its type until `expiresAt`. */
  abstract downloadUrl(object: ObjectToDownload, expiresAt: Date): Promise<string>;

  /** Size and type of the stored object, or null when nothing is stored under the key. */
  abstract stat(key: string): Promise<StoredObject | null>;

  /** The stored bytes as a stream; the caller destroys it when it stops reading early. */
  abstract read(key: string): Promise<Readable>;

  /**
   * Stores bytes the service already holds (an upload made with the call itself, as the Telegram
   * face's multipart InputFile) under a fresh key; never replaces an object.
   */
  abstract write(object: ObjectToUpload, bytes: Buffer): Promise<void>;

  /** Removes the object; removing a missing object is not an error. */
  abstract delete(key: string): Promise<void>;
}

/** Seconds from now until `at`, at least one. */
export function secondsUntil(at: Date, now = Date.now()): number {
  return Math.max(1, Math.floor((at.getTime() - now) / 1000));
}
