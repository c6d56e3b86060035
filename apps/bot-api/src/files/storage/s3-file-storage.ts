import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import {
  FileStorage,
  ObjectToDownload,
  ObjectToUpload,
  secondsUntil,
  StoredObject,
  UploadTarget,
} from './file-storage';

export interface S3StorageOptions {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/** SigV4 presigned URLs are valid for at most seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Bytes in an S3-compatible bucket (AWS, MinIO, R2). Clients upload and download directly with
 * presigned URLs; the upload URL signs Content-Length and Content-Type, so the store itself refuses
 * a PUT whose size or type differs from the declaration, and `If-None-Match: *`, so a second PUT
 * cannot replace stored bytes on stores with conditional writes (AWS, MinIO, R2). A key completes once.
 */
export class S3FileStorage extends FileStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    super();
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint !== '' ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      ...(options.accessKeyId !== ''
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      // Checksum headers the SDK would otherwise add to every PUT are not something a browser or bot
      // can reproduce from the returned headers; the signed Content-Length and Content-Type bind the upload.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async uploadTarget(object: ObjectToUpload, expiresAt: Date): Promise<UploadTarget> {
    const command = new PutObjectCommand({
      Bucket: this.options.bucket,
      Key: object.key,
      ContentType: object.type,
      ContentLength: object.size,
      // A conditional write: once bytes are stored under the key, the same URL cannot replace them.
      IfNoneMatch: '*',
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: Math.min(MAX_PRESIGN_SECONDS, secondsUntil(expiresAt)),
      signableHeaders: new Set(['content-type', 'content-length', 'if-none-match']),
    });
    return {
      url,
      headers: { 'Content-Type': object.type, 'Content-Length': String(object.size), 'If-None-Match': '*' },
    };
  }

  downloadUrl(object: ObjectToDownload, expiresAt: Date): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: object.key,
      ResponseContentType: object.type,
    });
    return getSignedUrl(this.client, command, { expiresIn: Math.min(MAX_PRESIGN_SECONDS, secondsUntil(expiresAt)) });
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? null };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
    return object.Body as Readable;
  }

  async write(object: ObjectToUpload, bytes: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: object.key,
        Body: bytes,
        ContentType: object.type,
        ContentLength: object.size,
        IfNoneMatch: '*',
      }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }
}

function isMissing(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)
  );
}
