import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RequestContext {
  id: string;
  startedAt: bigint;
}

type WithContext = Request & { id?: string; requestStartedAt?: bigint };

/** A caller-supplied UUID request id is kept so traces can be joined; anything else is replaced. */
export function assignRequestId(req: Request): string {
  const r = req as WithContext;
  if (r.id) return r.id;
  const incoming = req.headers['x-request-id'];
  r.id = typeof incoming === 'string' && UUID.test(incoming) ? incoming : randomUUID();
  return r.id;
}

export function requestContext(req: Request): RequestContext {
  const r = req as WithContext;
  return { id: assignRequestId(req), startedAt: r.requestStartedAt ?? process.hrtime.bigint() };
}

export function elapsedMs(req: Request): number {
  const started = (req as WithContext).requestStartedAt ?? process.hrtime.bigint();
  return Number((process.hrtime.bigint() - started) / 1_000_000n);
}

export function requestContextMiddleware(requestIdHeader: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    (req as WithContext).requestStartedAt = process.hrtime.bigint();
    res.setHeader(requestIdHeader, assignRequestId(req));
    next();
  };
}
