import { ApiError, codedError } from '@app/envelope';
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { IDEMPOTENCY_ERROR_CODES } from './idempotency.errors';
import type { IdempotencyKeys } from './schema.generated';

/*
 * The decisions of the idempotency library, free of Nest and PostgreSQL: the interceptor, the
 * store and `IdempotentCall` only carry them out, so each can be tested in isolation and fast.
 */

/** 1–255 printable ASCII characters, as the API documents the header. */
export const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** What identifies a request apart from its key: the same key with another fingerprint is another request. */
export function requestFingerprint(method: string, path: string, rawBody: Buffer | undefined): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n`)
    .update(rawBody ?? Buffer.alloc(0))
    .digest('hex');
}

/** The route a key belongs to: the method and the route's pattern (`/orders/:id`), else the path itself. */
export function routeOf(method: string, routePath: string | undefined, path: string): string {
  return `${method} ${routePath ?? path}`;
}

/** A missing key: an optional-key route then runs as if it were not idempotent. */
export function isAbsentKey(rawKey: unknown): boolean {
  return rawKey === undefined || rawKey === null || rawKey === '';
}

/**
 * The key a request runs under, or undefined when an optional key was not sent. A missing or
 * malformed key is a 400: `ApiError.badRequest` carries no code, so each service's own validation
 * code (VALIDATION_FAILED, VALIDATION) fills in and the library needs no code of its own.
 */
export function keyOfRequest(rawKey: unknown, required: boolean, keyName: string): string | undefined {
  if (isAbsentKey(rawKey)) {
    if (required) throw ApiError.badRequest(`${keyName} is required`, [{ field: keyName, problem: 'is required' }]);
    return undefined;
  }
  if (typeof rawKey !== 'string' || !KEY_PATTERN.test(rawKey)) {
    throw ApiError.badRequest(`${keyName} must be 1-255 printable characters`, [
      { field: keyName, problem: 'must be 1-255 printable characters' },
    ]);
  }
  return rawKey;
}

/** Keys are scoped to the caller; a route marked idempotent behind no authentication is a programming error. */
export function scopeOf(tenant: string | undefined): string {
  if (!tenant) throw new Error('idempotent route without an authenticated tenant');
  return tenant;
}

/** A record found under the key a request wants. */
/** A stored key as a decision reads it, and whether its claim is older than the lock timeout (its request presumably died). */
export type StoredKey = Pick<
  Selectable<IdempotencyKeys>,
  'route' | 'fingerprint' | 'status' | 'response_status' | 'response_body'
> & { stale: boolean };

export type StoredKeyVerdict =
  { kind: 'replay'; status: number; body: string } | { kind: 'reused' } | { kind: 'in-use' } | { kind: 'take-over' };

/**
 * What a request meets in the stored record of its key: another request's key (another route or
 * fingerprint) is reused; the same request's completed answer is replayed; its claim still running
 * is in use, unless the claim is older than the lock timeout: then this request takes it over.
 */
export function judgeStoredKey(stored: StoredKey, route: string, fingerprint: string): StoredKeyVerdict {
  if (stored.route !== route || stored.fingerprint !== fingerprint) return { kind: 'reused' };
  if (stored.status === 'completed') {
    return { kind: 'replay', status: stored.response_status ?? 200, body: stored.response_body ?? '' };
  }
  return stored.stale ? { kind: 'take-over' } : { kind: 'in-use' };
}

/** 409 IDEMPOTENCY_KEY_REUSED: the key belongs to another request. */
export function keyReused(): ApiError {
  return codedError(IDEMPOTENCY_ERROR_CODES, 'IDEMPOTENCY_KEY_REUSED');
}

/** 409 IDEMPOTENCY_KEY_IN_USE: a request with the key runs now; a retry a second later may get its answer. */
export function keyInUse(): ApiError {
  return codedError(IDEMPOTENCY_ERROR_CODES, 'IDEMPOTENCY_KEY_IN_USE', undefined, {
    headers: { 'Retry-After': '1' },
  });
}

/**
 * Whether the failure of a request is kept as the key's answer or the key is freed for a retry.
 * Only a deterministic 4xx of a handler that started is kept (Stripe's rule: results are saved once
 * the endpoint began executing). A request refused before its handler ran (a body or parameter that
 * failed validation) saves nothing, so a corrected retry with the same key runs; a 429 or 5xx is
 * transient, the same request may succeed later.
 */
export function failureDisposition(status: number, handlerStarted: boolean): 'store' | 'release' {
  const deterministic = status >= 400 && status < 500 && status !== 429;
  return handlerStarted && deterministic ? 'store' : 'release';
}

/**
 * The completing write must hit exactly the row of this claim: none means the claim was taken over
 * after the lock timeout, and the business transaction must roll back rather than commit twice.
 */
export function ensureClaimHeld(updatedRows: number | null | undefined): void {
  if (updatedRows !== 1) {
    throw new Error('idempotency claim was lost (taken over after the lock timeout); rolling back');
  }
}
