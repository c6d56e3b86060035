import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';

const NUL = '\u0000';
const MAX_DEPTH = 32;

/** The first place a NUL character occurs in parsed input, e.g. `body.usage_rules.stores[1]`. */
export function nulPath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return path;
    const found = nulPath(item, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * PostgreSQL cannot store U+0000 in text or jsonb: such input would otherwise fail inside the
 * transaction as a 500 instead of being refused as the bad input it is.
 */
export function assertNoNul(req: Request): void {
  const found = nulPath(req.body, 'body') ?? nulPath(req.query, 'query') ?? nulPath(req.params, 'params');
  if (found) {
    throw ApiError.badRequest(`${found} contains a NUL character`, [
      { field: found, problem: 'contains a NUL character' },
    ]);
  }
}

/** For routes outside the runtime guard chain (staff routes), which checks this itself. */
@Injectable()
export class NulInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    assertNoNul(context.switchToHttp().getRequest<Request>());
    return true;
  }
}
