import { ApiError } from '@app/envelope';
import { json, type NextFunction, type Request, type Response } from 'express';

export type RequestWithRawBody = Request & { rawBody?: Buffer };

const PARSE_ERRORS: Record<string, [number, string]> = {
  'entity.parse.failed': [400, 'Malformed JSON body'],
  'entity.too.large': [413, 'Request body exceeds the size limit'],
  'encoding.unsupported': [415, 'Unsupported content encoding'],
  'charset.unsupported': [415, 'Unsupported charset; send UTF-8 JSON'],
  'request.aborted': [400, 'Request body was aborted'],
  'request.size.invalid': [400, 'Request body size does not match Content-Length'],
};

/**
 * Deeper bodies are refused before anything walks them: validation, transformation and the NUL check
 * recurse, and a body nested ten thousand levels would overflow the stack (a 500) instead of being
 * refused as the bad input it is. No route of either service takes more than a few levels.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether a parsed JSON value nests objects or arrays deeper than `max`; iterative, so any depth is safe to ask. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** From the header itself: express' `req.is` answers null for a request without a body. */
function isJson(req: Request): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[^/]+\+json$/.test(type);
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A body limit as body-parser reads it (`1mb`, `100kb`, `2048`), or undefined for a spelling this does not know. */
export function limitInBytes(limit: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim());
  return match ? Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]) : undefined;
}

/** The bodies read without body-parser: small enough that a copy costs nothing (every API call's body). */
const DIRECT_READ_MAX_BYTES = 64 * 1024;

/**
 * Whether the body can be read directly: a Content-Length within the limit (Node's parser then delivers
 * exactly that many bytes), no content coding, UTF-8. Anything else (chunked, gzip, another charset,
 * an oversized length) takes body-parser's path with its own refusals.
 */
function directlyReadable(req: Request, maxBytes: number): boolean {
  const length = req.headers['content-length'];
  if (length === undefined || req.headers['transfer-encoding'] !== undefined) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'] ?? '';
  const parameters = type.indexOf(';');
  if (parameters >= 0 && !/^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(type.slice(parameters + 1))) return false;
  return Number(length) <= maxBytes;
}

/** body-parser's strict JSON: an object or an array, a leading UTF-8 byte order mark dropped. */
function parseStrictJson(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw new ApiError(400, undefined, PARSE_ERRORS['entity.parse.failed'][1]);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, undefined, PARSE_ERRORS['entity.parse.failed'][1]);
  }
}

/** The whole body of a request whose length is known, or the 400 of a request aborted before its end. */
function readWhole(req: Request): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const aborted = () => reject(new ApiError(400, undefined, PARSE_ERRORS['request.aborted'][1]));
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', aborted);
    req.once('close', () => {
      if (!req.complete) aborted();
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  });
}

/**
 * JSON body parsing that keeps the raw bytes (idempotency fingerprints and signatures are computed
 * on them) and throws ApiErrors, so that parse failures reach the envelope filter like any other error.
 * `skip` lets a route consume the raw stream itself (file uploads).
 */
export function jsonBodyMiddleware(limit: string, skip: (req: Request) => boolean = () => false) {
  const parse = json({
    limit,
    type: () => true,
    verify: (req, _res, buf) => {
      (req as RequestWithRawBody).rawBody = buf;
    },
  });
  const limitBytes = limitInBytes(limit);
  const directMax = limitBytes === undefined ? -1 : Math.min(limitBytes, DIRECT_READ_MAX_BYTES);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (skip(req)) return next();
    // A form (url-encoded, multipart, text/plain) is what another site's page can send without asking:
    // a state-changing call that names any type but JSON is refused even with an empty body.
    if (!SAFE_METHODS.has(req.method) && req.headers['content-type'] !== undefined && !isJson(req)) {
      throw new ApiError(415, undefined, 'Content-Type must be application/json');
    }
    if (!hasBody(req)) {
      (req as RequestWithRawBody).rawBody = Buffer.alloc(0);
      req.body = {};
      return next();
    }
    if (!isJson(req)) throw new ApiError(415, undefined, 'Content-Type must be application/json');
    if (directlyReadable(req, directMax)) {
      const raw = await readWhole(req);
      (req as RequestWithRawBody).rawBody = raw;
      req.body = parseStrictJson(raw);
    } else
      await new Promise<void>((resolve, reject) => {
        parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
      }).catch((error: { type?: string; status?: number }) => {
        const [status, message] = PARSE_ERRORS[error.type ?? ''] ?? [error.status ?? 400, 'Unreadable request body'];
        throw new ApiError(status, undefined, message);
      });
    if (nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
      throw ApiError.badRequest(`Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    next();
  };
}
