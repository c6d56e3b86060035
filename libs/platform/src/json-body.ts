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
