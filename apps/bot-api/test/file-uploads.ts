import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import request from 'supertest';
import { deflateSync, crc32 } from 'node:zlib';
import type { BotTestContext } from './app-context';

/** A valid RGB PNG of the given size with a gradient, so every upload has distinct, checkable bytes. */
export function pngOf(width: number, height: number, seed = 0): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) row.set([(x * 40 + seed) & 255, (y * 40) & 255, (seed * 7) & 255], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Who uploads: a bot by token, or a person by account JWT through the client routes. */
export type Uploader = { bot: string } | { user: string };

function base(uploader: Uploader): { prefix: string; authorization: string } {
  return 'bot' in uploader
    ? { prefix: '/api/v1/bots/files', authorization: `Bearer ${uploader.bot}` }
    : { prefix: '/api/v1/bots/client/files', authorization: `Bearer ${uploader.user}` };
}

export function requestCredentials(ctx: BotTestContext, uploader: Uploader, body: object) {
  const { prefix, authorization } = base(uploader);
  return request(ctx.app.getHttpServer())
    .post(`${prefix}/upload-credentials`)
    .set('Authorization', authorization)
    .send(body);
}

export function completeUpload(ctx: BotTestContext, uploader: Uploader, body: object) {
  const { prefix, authorization } = base(uploader);
  return request(ctx.app.getHttpServer()).post(`${prefix}/complete`).set('Authorization', authorization).send(body);
}

export interface Answer {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
  json(): any;
}

/**
 * Calls a URL the API handed out: bot-api's own (disk driver) through the test app, anything else
 * (the S3 store) over the network.
 */
export async function callUrl(
  ctx: BotTestContext,
  method: 'GET' | 'PUT',
  url: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Answer> {
  const own = ctx.config.FILE_PUBLIC_BASE_URL.replace(/\/+$/, '');
  if (url.startsWith(`${own}/`)) {
    const path = url.slice(own.length);
    let call =
      method === 'GET' ? request(ctx.app.getHttpServer()).get(path) : request(ctx.app.getHttpServer()).put(path);
    for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
    const res = await (body !== undefined ? call.send(body) : call).buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
    const bytes = res.body as Buffer;
    return {
      status: res.status,
      body: bytes,
      headers: res.headers as Record<string, string>,
      json: () => JSON.parse(bytes.toString('utf8')),
    };
  }
  const res = await fetch(url, { method, headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    body: bytes,
    headers: Object.fromEntries(res.headers.entries()),
    json: () => JSON.parse(bytes.toString('utf8')),
  };
}

export interface Uploaded {
  key: string;
  file: any;
}

/** The three steps with the bytes given; fails the test on any refusal. */
export async function uploadFile(
  ctx: BotTestContext,
  uploader: Uploader,
  bytes: Buffer,
  fileName: string,
  fileType: string,
): Promise<Uploaded> {
  const declaration = { fileName, fileSize: bytes.length, fileType };
  const credentials = await requestCredentials(ctx, uploader, declaration);
  if (credentials.status !== 201)
    throw new Error(`credentials: ${credentials.status} ${JSON.stringify(credentials.body)}`);
  const { uploadUrl, key, headers } = credentials.body.data;
  const put = await callUrl(ctx, 'PUT', uploadUrl, headers, bytes);
  if (put.status >= 300) throw new Error(`PUT: ${put.status} ${put.body.toString('utf8')}`);
  const completed = await completeUpload(ctx, uploader, { key, ...declaration });
  if (completed.status !== 201) throw new Error(`complete: ${completed.status} ${JSON.stringify(completed.body)}`);
  return { key, file: completed.body.data };
}

const BUCKET = 'bot-files';

export interface StorageUnderTest {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** bot-api's own disk driver on a temporary directory. */
export async function diskStorage(): Promise<StorageUnderTest> {
  const directory = mkdtempSync(join(tmpdir(), 'bot-files-'));
  return {
    env: { FILE_STORAGE_DRIVER: 'disk', FILE_STORAGE_DIR: directory },
    stop: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** A real S3-compatible server (s3rver) on a free port with a temporary directory and one bucket. */
export async function s3Storage(): Promise<StorageUnderTest> {
  const directory = mkdtempSync(join(tmpdir(), 'bot-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  client.destroy();
  return {
    env: {
      FILE_STORAGE_DRIVER: 's3',
      FILE_S3_ENDPOINT: endpoint,
      FILE_S3_BUCKET: BUCKET,
      FILE_S3_REGION: 'us-east-1',
      FILE_S3_ACCESS_KEY_ID: 'S3RVER',
      FILE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      FILE_S3_FORCE_PATH_STYLE: 'true',
    },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
