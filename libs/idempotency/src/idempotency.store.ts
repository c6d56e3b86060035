import { Inject, Injectable } from '@nestjs/common';
import { namedStatement, runNamed } from '@app/platform';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ensureClaimHeld, judgeStoredKey, keyInUse, keyReused, StoredKey, StoredKeyVerdict } from './idempotency-decisions';
import { IDEMPOTENCY_OPTIONS, IdempotencyOptions } from './idempotency.options';
import { advisoryLockId, IdempotencyTarget } from './idempotency-target';

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
const CLAIM_IN_TRANSACTION = namedStatement(
  'idempotency_claim_in_transaction',
  `WITH ${claimCtes(1)}
   SELECT held, EXISTS (SELECT 1 FROM idempotency_claim) AS claimed FROM idempotency_lock`,
);

/**
 * A deterministic 4xx of a request whose transaction rolled back (or never began): recorded as a
 * completed key in one statement, unless another request with the key runs now or has completed.
 * $1 scope, $2 key, $3 route, $4 fingerprint, $5 ttl ms, $6 status, $7 body, $8 lock id, $9 lock timeout ms.
 */
const RECORD_FAILURE = namedStatement(
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
const READ_KEY = namedStatement(
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
const COMPLETE_KEY = namedStatement(
  'idempotency_complete_key',
  `UPDATE idempotency_keys
      SET status = 'completed', response_status = $4, response_body = $5, locked_at = NULL,
          expires_at = clock_timestamp() + $6::float8 * interval '1 millisecond'
    WHERE scope = $1 AND key = $2 AND lock_token = $3 AND status = 'in_progress'`,
);

export interface Claim {
  scope: string;
  key: string;
  lockToken: string;
}

export type ClaimOutcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; status: number; body: string };
export type Replay = Extract<ClaimOutcome, { kind: 'replay' }>;


/** Postgres-backed idempotency records; the completing write joins the caller's business transaction. */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(IDEMPOTENCY_OPTIONS) private readonly options: IdempotencyOptions,
  ) {}

  async claim(scope: string, key: string, route: string, fingerprint: string): Promise<ClaimOutcome> {
    // An expired key whose request still runs (not yet stale) is kept: freeing it would let a retry run twice.
    await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE scope = $1 AND key = $2 AND expires_at < now()
          AND (status = 'completed' OR locked_at < now() - $3 * interval '1 millisecond')`,
      [scope, key, this.options.lockTimeoutMs],
    );
    const lockToken = randomUUID();
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_keys (scope, key, route, fingerprint, status, lock_token, locked_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_progress', $5, now(), now() + $6 * interval '1 millisecond')
       ON CONFLICT (scope, key) DO NOTHING RETURNING 1`,
      [scope, key, route, fingerprint, lockToken, this.options.ttlMs],
    );
    if (inserted.length > 0) return { kind: 'claimed', claim: { scope, key, lockToken } };

    const [existing]: Array<StoredKey & { lock_token: string | null }> = await this.dataSource.query(
      `SELECT route, fingerprint, status, lock_token, response_status, response_body,
              locked_at < now() - $3 * interval '1 millisecond' AS stale
         FROM idempotency_keys WHERE scope = $1 AND key = $2`,
      [scope, key, this.options.lockTimeoutMs],
    );
    // Deleted by expiry between our insert and select: the caller may simply retry.
    if (!existing) throw keyInUse();
    const verdict = this.answerOf(judgeStoredKey(existing, route, fingerprint));
    if (verdict.kind === 'replay') return verdict;
    return this.takeOver(scope, key, existing.lock_token);
  }

  /**
   * The claim as the first statement of the use case's own transaction: no commit of its own, and the
   * in-flight mark (an advisory lock and an uncommitted row) vanishes with the transaction, whether it
   * commits, rolls back or its process dies. Throws 409 while another request with the key runs or
   * when the key belongs to another request; returns the stored answer of a completed one.
   */
  async claimInTransaction(manager: EntityManager, target: IdempotencyTarget): Promise<ClaimOutcome> {
    const parameters = this.claimParameters(target);
    const { rows } = await runNamed<{ held: boolean; claimed: boolean }>(manager, CLAIM_IN_TRANSACTION, parameters);
    return this.claimOutcome(manager, target, parameters, rows[0].held, rows[0].claimed);
  }

  /** The values of `claimCtes` for one attempt to claim the target (a fresh lock token each time). */
  claimParameters(target: IdempotencyTarget): unknown[] {
    return [
      target.scope,
      target.key,
      target.route,
      target.fingerprint,
      randomUUID(),
      this.options.ttlMs,
      this.options.lockTimeoutMs,
      advisoryLockId(target.scope, target.key),
    ];
  }

  /** What a claim made with `parameters` came to, from the `held` and `claimed` its statement returned. */
  async claimOutcome(
    manager: EntityManager,
    target: IdempotencyTarget,
    parameters: unknown[],
    held: boolean,
    claimed: boolean,
  ): Promise<ClaimOutcome> {
    if (claimed)
      return { kind: 'claimed', claim: { scope: target.scope, key: target.key, lockToken: parameters[4] as string } };
    if (!held) throw keyInUse();
    return this.existingAnswer(manager, target);
  }

  /**
   * Records the deterministic failure of a request that holds no claim (its transaction rolled back, or
   * it failed before claiming). Another request with the key that runs or completed meanwhile wins:
   * its answer is returned instead; `undefined` means this failure is now the stored answer.
   */
  async recordFailure(target: IdempotencyTarget, status: number, body: string): Promise<Replay | undefined> {
    const { scope, key, route, fingerprint } = target;
    const { rows } = await runNamed<{ held: boolean; recorded: boolean }>(this.dataSource, RECORD_FAILURE, [
      scope,
      key,
      route,
      fingerprint,
      this.options.ttlMs,
      status,
      body,
      advisoryLockId(scope, key),
      this.options.lockTimeoutMs,
    ]);
    if (rows[0].recorded) return undefined;
    if (!rows[0].held) throw keyInUse();
    const answer = await this.existingAnswer(this.dataSource, target);
    return answer.kind === 'replay' ? answer : undefined;
  }

  /** Marks the key completed inside the business transaction: both commit or neither does. */
  async complete(manager: EntityManager, claim: Claim, status: number, body: string): Promise<void> {
    const { rowCount } = await runNamed(manager, COMPLETE_KEY, [
      claim.scope,
      claim.key,
      claim.lockToken,
      status,
      body,
      this.options.ttlMs,
    ]);
    ensureClaimHeld(rowCount);
  }

  /** A deterministic failure (4xx) is remembered so the same request gets the same answer. */
  async storeFailure(claim: Claim, status: number, body: string): Promise<void> {
    await this.complete(this.dataSource.manager, claim, status, body);
  }

  /** A 5xx releases the key so that a retry with the same key runs again (a committed result stays). */
  async release(claim: Claim): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND lock_token = $3 AND status = 'in_progress'`,
      [claim.scope, claim.key, claim.lockToken],
    );
  }

  async purgeExpired(): Promise<number> {
    const [, deleted] = await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE expires_at < now() AND (status = 'completed' OR locked_at < now() - $1 * interval '1 millisecond')`,
      [this.options.lockTimeoutMs],
    );
    return deleted as number;
  }

  private async takeOver(scope: string, key: string, previous: string | null): Promise<ClaimOutcome> {
    const lockToken = randomUUID();
    // TypeORM returns [rows, affectedCount] for UPDATE, even with RETURNING.
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE idempotency_keys SET lock_token = $3, locked_at = now()
        WHERE scope = $1 AND key = $2 AND status = 'in_progress' AND lock_token IS NOT DISTINCT FROM $4
        RETURNING 1`,
      [scope, key, lockToken, previous],
    );
    if (affected !== 1) throw keyInUse();
    return { kind: 'claimed', claim: { scope, key, lockToken } };
  }

  /**
   * What the key of a request refused before its handler ran meets: 409 REUSED when it belongs to
   * another request, the stored answer of the same request, else nothing (the refusal stands alone).
   */
  async storedAnswer(target: IdempotencyTarget): Promise<Replay | undefined> {
    const { rows } = await runNamed<StoredKey>(this.dataSource, READ_KEY, [
      target.scope,
      target.key,
      this.options.lockTimeoutMs,
    ]);
    if (!rows[0]) return undefined;
    const verdict = judgeStoredKey(rows[0], target.route, target.fingerprint);
    if (verdict.kind === 'reused') throw keyReused();
    return verdict.kind === 'replay' ? verdict : undefined;
  }

  /** A key this request could not claim although nobody runs with it: the stored answer, or 409. */
  private async existingAnswer(on: EntityManager | DataSource, target: IdempotencyTarget): Promise<ClaimOutcome> {
    const { rows } = await runNamed<StoredKey>(on, READ_KEY, [target.scope, target.key, this.options.lockTimeoutMs]);
    const existing = rows[0];
    if (!existing) throw keyInUse();
    const verdict = this.answerOf(judgeStoredKey(existing, target.route, target.fingerprint));
    // The claim statement already took over a stale claim if it could: one it could not is still in use.
    if (verdict.kind === 'take-over') throw keyInUse();
    return verdict;
  }

  /** The stored answer to replay, a take-over to attempt, or the 409 of a key reused or in use. */
  private answerOf(verdict: StoredKeyVerdict): Replay | { kind: 'take-over' } {
    if (verdict.kind === 'reused') throw keyReused();
    if (verdict.kind === 'in-use') throw keyInUse();
    return verdict;
  }
}
