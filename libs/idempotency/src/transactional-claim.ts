import { namedStatement } from '@app/platform';
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

/**
 * The claim as two common table expressions: `idempotency_lock` tries the advisory lock first, so a
 * second request with the key never waits on the first one's uncommitted row, and `idempotency_claim`
 * then writes the in-progress row (one row when claimed). Only an expired record, or a claim of the
 * same request older than the lock timeout, is replaced; anything else stays and is read apart
 * (replay, reuse, in use). Parameters from `$first` on: scope, key, route, fingerprint, lock token,
 * ttl ms, lock timeout ms, lock id — the values of `claimParameters`. A use case may put its first
 * business statement behind these CTEs, guarded by `EXISTS (SELECT 1 FROM idempotency_claim)`, to save
 * the claim's round trip.
 */
export function claimCtes(first: number): string {
  const p = (n: number) => `$${first + n - 1}`;
  return `idempotency_lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(${p(8)}::bigint) AS held),
        idempotency_claim AS (
          INSERT INTO idempotency_keys (scope, key, route, fingerprint, status, lock_token, locked_at, expires_at)
          SELECT ${p(1)}::varchar, ${p(2)}::varchar, ${p(3)}::varchar, ${p(4)}::text, 'in_progress', ${p(5)}::uuid,
                 now(), now() + ${p(6)}::float8 * interval '1 millisecond'
            FROM idempotency_lock WHERE held
          ON CONFLICT (scope, key) DO UPDATE
             SET route = EXCLUDED.route, fingerprint = EXCLUDED.fingerprint, status = 'in_progress',
                 lock_token = EXCLUDED.lock_token, locked_at = now(), response_status = NULL,
                 response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE (idempotency_keys.status = 'completed' AND idempotency_keys.expires_at < now())
              OR (idempotency_keys.status = 'in_progress'
                  AND idempotency_keys.locked_at < now() - ${p(7)}::float8 * interval '1 millisecond'
                  AND (idempotency_keys.expires_at < now()
                       OR (idempotency_keys.route = EXCLUDED.route
                           AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)))
          RETURNING 1)`;
}

/** The claim on its own, as the first statement of the business transaction. */
export const CLAIM_IN_TRANSACTION = namedStatement(
  'idempotency_claim_in_transaction',
  `WITH ${claimCtes(1)}
   SELECT held, EXISTS (SELECT 1 FROM idempotency_claim) AS claimed FROM idempotency_lock`,
);

/**
 * A deterministic 4xx of a request whose transaction rolled back (or never began): recorded as a
 * completed key in one statement, unless another request with the key runs now or has completed.
 * $1 scope, $2 key, $3 route, $4 fingerprint, $5 ttl ms, $6 status, $7 body, $8 lock id, $9 lock timeout ms.
 */
export const RECORD_FAILURE = namedStatement(
  'idempotency_record_failure',
  `WITH lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($8::bigint) AS held),
        recorded AS (
          INSERT INTO idempotency_keys
                 (scope, key, route, fingerprint, status, response_status, response_body, expires_at)
          SELECT $1, $2, $3, $4, 'completed', $6, $7, now() + $5 * interval '1 millisecond' FROM lock WHERE held
          ON CONFLICT (scope, key) DO UPDATE
             SET route = EXCLUDED.route, fingerprint = EXCLUDED.fingerprint, status = 'completed',
                 lock_token = NULL, locked_at = NULL, response_status = EXCLUDED.response_status,
                 response_body = EXCLUDED.response_body, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at < now()
             AND (idempotency_keys.status = 'completed'
                  OR idempotency_keys.locked_at < now() - $9 * interval '1 millisecond')
          RETURNING 1)
   SELECT lock.held, EXISTS (SELECT 1 FROM recorded) AS recorded FROM lock`,
);

/** The record that a claim or a failure found in its way; read in a statement of its own so it sees the latest commit. */
export const READ_KEY = namedStatement(
  'idempotency_read_key',
  `SELECT route, fingerprint, status, response_status, response_body,
          locked_at < now() - $3 * interval '1 millisecond' AS stale
     FROM idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at >= now()`,
);

/**
 * Marks the claimed key completed with its response, inside the business transaction. The answer is kept
 * for the TTL from the moment it is stored ($6 ms): a request that ran longer than the TTL must still be
 * replayed, not run again, by the retry that follows it. `clock_timestamp()`, since `now()` is the start
 * of a transaction that may have claimed the key long before.
 */
export const COMPLETE_KEY = namedStatement(
  'idempotency_complete_key',
  `UPDATE idempotency_keys
      SET status = 'completed', response_status = $4, response_body = $5, locked_at = NULL,
          expires_at = clock_timestamp() + $6::float8 * interval '1 millisecond'
    WHERE scope = $1 AND key = $2 AND lock_token = $3 AND status = 'in_progress'`,
);
