import busboy from 'busboy';
import { json, urlencoded, type Request, type Response } from 'express';
import { nestedDeeperThan, MAX_JSON_DEPTH } from '@app/platform';
import { TelegramError } from './telegram-errors';

/** A file part of a multipart request: Telegram's InputFile uploaded with the call. */
export interface UploadedPart {
  field: string;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
}

export interface ParsedCall {
  values: Record<string, unknown>;
  parts: Map<string, UploadedPart>;
}

export interface ParseLimits {
  /** Largest JSON or form body, as express' `limit`. */
  bodyLimit: string;
  /** Largest single file part, in bytes. */
  fileBytes: number;
  /** Most file parts of one call (sendMediaGroup takes ten). */
  files: number;
  /** Largest sum of a call's file parts: the parts are held in memory until the call is done. */
  totalFileBytes: number;
  /** Most multipart calls one process buffers at once; one more is told to retry (429). */
  concurrentMultipart: number;
}

/** Multipart calls of this process whose file parts are in memory now. */
let bufferingCalls = 0;

const FIELD_BYTES = 1024 * 1024;
const MAX_FIELDS = 100;

function runMiddleware(middleware: ReturnType<typeof json>, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    middleware(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}

function unreadable(error: unknown): TelegramError {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return new TelegramError(413, 'Request Entity Too Large');
  if (type === 'entity.parse.failed') return TelegramError.badRequest("can't parse JSON body");
  return TelegramError.badRequest('unreadable request body');
}

function parseMultipart(req: Request, limits: ParseLimits): Promise<ParsedCall> {
  return new Promise((resolve, reject) => {
    const values: Record<string, unknown> = {};
    const parts = new Map<string, UploadedPart>();
    let failure: TelegramError | null = null;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: MAX_FIELDS, fieldSize: FIELD_BYTES },
      });
    } catch {
      reject(TelegramError.badRequest('malformed multipart body'));
      return;
    }
    const fail = (error: TelegramError) => {
      failure ??= error;
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(TelegramError.badRequest(`parameter ${name} is too long`));
      values[name] = value;
    });
    let buffered = 0;
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        // Past a refusal or the call's total, the rest is read and dropped, never held.
        if (failure) return;
        buffered += chunk.length;
        if (buffered > limits.totalFileBytes) return fail(new TelegramError(413, 'Request Entity Too Large'));
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(new TelegramError(413, 'Request Entity Too Large')));
      stream.on('close', () => {
        parts.set(name, {
          field: name,
          fileName: info.filename || name,
          mimeType: info.mimeType || 'application/octet-stream',
          bytes: Buffer.concat(chunks),
        });
      });
    });
    parser.on('filesLimit', () => fail(TelegramError.badRequest(`at most ${limits.files} files per request`)));
    parser.on('fieldsLimit', () => fail(TelegramError.badRequest(`at most ${MAX_FIELDS} parameters per request`)));
    parser.on('error', () => reject(TelegramError.badRequest('malformed multipart body')));
    parser.on('close', () => (failure ? reject(failure) : resolve({ values, parts })));
    req.pipe(parser);
  });
}

/**
 * A call's parameters from the query string and the body, as Telegram takes them: JSON,
 * url-encoded form or multipart form with file parts. Body values win over query values.
 */
export async function parseTelegramCall(req: Request, res: Response, limits: ParseLimits): Promise<ParsedCall> {
  const query = Object.fromEntries(
    Object.entries(req.query as Record<string, unknown>).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.at(-1) : value,
    ]),
  );
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody || req.method === 'GET') return { values: query, parts: new Map() };
  if (req.is('multipart/form-data')) {
    if (bufferingCalls >= limits.concurrentMultipart) {
      throw new TelegramError(429, 'Too Many Requests: retry after 1', 1);
    }
    bufferingCalls += 1;
    try {
      const parsed = await parseMultipart(req, limits);
      return { values: { ...query, ...parsed.values }, parts: parsed.parts };
    } finally {
      bufferingCalls -= 1;
    }
  }
  if (req.is('application/x-www-form-urlencoded')) {
    await runMiddleware(urlencoded({ limit: limits.bodyLimit, extended: false }), req, res).catch((error) => {
      throw unreadable(error);
    });
    return { values: { ...query, ...(req.body as Record<string, unknown>) }, parts: new Map() };
  }
  if (req.is(['application/json', 'application/*+json'])) {
    await runMiddleware(json({ limit: limits.bodyLimit, strict: true }), req, res).catch((error) => {
      throw unreadable(error);
    });
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw TelegramError.badRequest('the JSON body must be an object');
    }
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) throw TelegramError.badRequest('the JSON body nests too deep');
    return { values: { ...query, ...(body as Record<string, unknown>) }, parts: new Map() };
  }
  throw TelegramError.badRequest('unsupported Content-Type; send JSON, a url-encoded form or multipart/form-data');
}
