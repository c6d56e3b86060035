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
    if (!hasBody(req)) {
      (req as RequestWithRawBody).rawBody = Buffer.alloc(0);
      req.body = {};
      return next();
    }
    if (!req.is(['application/json', 'application/*+json'])) {
      throw new ApiError(415, undefined, 'Content-Type must be application/json');
    }
    await new Promise<void>((resolve, reject) => {
      parse(req, res, (error?: unknown) => (error ? reject(error) : resolve()));
    }).catch((error: { type?: string; status?: number }) => {
      const [status, message] = PARSE_ERRORS[error.type ?? ''] ?? [error.status ?? 400, 'Unreadable request body'];
      throw new ApiError(status, undefined, message);
    });
    next();
  };
}
