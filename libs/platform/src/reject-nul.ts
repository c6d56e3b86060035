import { ApiError, RequestInputCheck } from '@app/envelope';
import type { Request } from 'express';

const NUL = '\u0000';
/**
 * The first place a NUL character occurs in parsed input, e.g. `body.media[1].caption`, at any depth
 * (the body parser has already refused bodies nested deeper than MAX_JSON_DEPTH).
 */
export function nulPath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return path;
    const found = nulPath(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/**
 * PostgreSQL cannot store U+0000 in text or jsonb: without this check such input would fail inside
 * a transaction as a 500 instead of being refused as the bad input it is. Every route runs it as its
 * first guard, before authentication, any route interceptor or pipe (see REQUEST_INPUT_CHECK).
 */
export const rejectNulInput: RequestInputCheck = (req: Request) => {
  const found = nulPath(req.body, 'body') ?? nulPath(req.query, 'query') ?? nulPath(req.params, 'params');
  if (found) {
    throw ApiError.badRequest(`${found} contains a NUL character`, [
      { field: found, problem: 'contains a NUL character' },
    ]);
  }
};
