import { createHash } from 'node:crypto';

/** What identifies one idempotent action and what it must match to be the same request again. */
export interface IdempotencyTarget {
  scope: string;
  key: string;
  route: string;
  fingerprint: string;
}

/**
 * The 64-bit advisory-lock id of a key. Holding it inside a transaction marks the request with this
 * key as running; Postgres frees it when that transaction ends, also when its process dies.
 */
export function advisoryLockId(scope: string, key: string): string {
  return createHash('sha256').update(`idempotency\n${scope}\n${key}`).digest().readBigInt64BE(0).toString();
}
