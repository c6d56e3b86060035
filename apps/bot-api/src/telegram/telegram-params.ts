import busboy from 'busboy';
import { json, urlencoded, type Request, type Response } from 'express';
import { nestedDeeperThan, MAX_JSON_DEPTH } from '@app/platform';
import { MultipartSlots } from './multipart-slots';
import { TelegramError, TELEGRAM_TEXTS } from './telegram-errors';

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
  /**
   * Gives back the multipart slot the call holds: its parts stay in memory until the call is done, so
   * the caller releases it when it has answered (a no-op for other encodings; calling it twice is harmless).
   */
  release: () => void;
}

export interface ParseLimits {
  /** Largest JSON or form body, as express' `limit`. */
  bodyLimit: string;
  /** Largest single file part, in bytes. */
  fileBytes: number;
  /** Most file parts of one call (sendMediaGroup takes ten). */
  files: number;
  /** Largest sum of a multipart call's fields and file parts: all of them are held in memory until the call is done. */
  totalBytes: number;
  /** The multipart calls this process holds; one more is told to retry (429). */
  slots: MultipartSlots;
  /** The calling bot, whose share of the slots the call takes. */
  botId: string;
  /** How long a multipart body may take to arrive; a slower one is cut off with 408. */
  bodyTimeoutMs: number;
}

const FIELD_BYTES = 1024 * 1024;
const MAX_FIELDS = 100;
const NOTHING_HELD = () => undefined;

function runMiddleware(middleware: ReturnType<typeof json>, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    middleware(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
  });
}

function unreadable(error: unknown): TelegramError {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return new TelegramError(413, TELEGRAM_TEXTS.entityTooLarge);
  if (type === 'entity.parse.failed') return TelegramError.badRequest("can't parse JSON body");
  return TelegramError.badRequest('unreadable request body');
}

type MultipartBody = Pick<ParsedCall, 'values' | 'parts'>;

/**
 * Reads a multipart body into memory, counting every byte of its fields and files against one total.
 * It settles on every ending: the whole body read, a malformed body, a client that goes away mid-body
 * (the socket closes before the body is complete), and a body slower than `bodyTimeoutMs`, which is
 * answered 408 on a connection that is then closed, so a trickling client holds nothing any longer.
 */
function parseMultipart(req: Request, res: Response, limits: ParseLimits): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const values: Record<string, unknown> = {};
    const parts = new Map<string, UploadedPart>();
    let failure: TelegramError | null = null;
    let settled = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: MAX_FIELDS, fieldSize: FIELD_BYTES },
      });
    } catch {
      reject(new TelegramError(400, TELEGRAM_TEXTS.malformedMultipart));
      return;
    }
    const settle = (error: TelegramError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('close', onClose);
      req.off('error', onAborted);
      if (!error) return resolve({ values, parts });
      req.unpipe(parser);
      parser.removeAllListeners('file');
      parser.removeAllListeners('field');
      parts.clear();
      reject(error);
    };
    const onAborted = () => settle(TelegramError.badRequest('request body was aborted'));
    // 'close' also follows a body read to its end; only an incomplete one means the client went away.
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    const timer = setTimeout(() => {
      res.setHeader('Connection', 'close');
      res.once('finish', () => req.destroy());
      settle(new TelegramError(408, 'Request Timeout: the body took too long to arrive'));
    }, limits.bodyTimeoutMs);
    req.once('close', onClose);
    req.once('error', onAborted);

    const fail = (error: TelegramError) => {
      failure ??= error;
    };
    let held = 0;
    /** Counts bytes against the call's total; past it the call fails and nothing more is kept. */
    const hold = (bytes: number): boolean => {
      if (failure) return false;
      held += bytes;
      if (held <= limits.totalBytes) return true;
      fail(new TelegramError(413, TELEGRAM_TEXTS.entityTooLarge));
      return false;
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(TelegramError.badRequest(`parameter ${name} is too long`));
      if (hold(Buffer.byteLength(name) + Buffer.byteLength(value))) values[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      // Past a refusal or the call's total, the rest is read and dropped, never held.
      stream.on('data', (chunk: Buffer) => {
        if (hold(chunk.length)) chunks.push(chunk);
      });
      stream.on('limit', () => fail(new TelegramError(413, TELEGRAM_TEXTS.entityTooLarge)));
      stream.on('close', () => {
        if (failure) return;
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
    parser.on('error', () => settle(new TelegramError(400, TELEGRAM_TEXTS.malformedMultipart)));
    parser.on('close', () => settle(failure));
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
  if (!hasBody || req.method === 'GET') return { values: query, parts: new Map(), release: NOTHING_HELD };
  if (req.is('multipart/form-data')) {
    const release = limits.slots.tryAcquire(limits.botId);
    if (!release) throw new TelegramError(429, 'Too Many Requests: retry after 1', 1);
    try {
      const parsed = await parseMultipart(req, res, limits);
      return { values: { ...query, ...parsed.values }, parts: parsed.parts, release };
    } catch (error) {
      release();
      throw error;
    }
  }
  if (req.is('application/x-www-form-urlencoded')) {
    await runMiddleware(urlencoded({ limit: limits.bodyLimit, extended: false }), req, res).catch((error) => {
      throw unreadable(error);
    });
    return { values: { ...query, ...(req.body as Record<string, unknown>) }, parts: new Map(), release: NOTHING_HELD };
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
    return { values: { ...query, ...(body as Record<string, unknown>) }, parts: new Map(), release: NOTHING_HELD };
  }
  throw TelegramError.badRequest('unsupported Content-Type; send JSON, a url-encoded form or multipart/form-data');
}
