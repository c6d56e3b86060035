import { Inject, Injectable } from '@nestjs/common';
import { namedStatement, preparedFor, queryBuilder, runNamed, SqlTarget } from '@app/platform';
import { Kysely, QueryCreator, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ensureClaimHeld, judgeStoredKey, keyInUse, keyReused, StoredKey, StoredKeyVerdict } from './idempotency-decisions';
import { IDEMPOTENCY_OPTIONS, IdempotencyOptions } from './idempotency.options';
import { advisoryLockId, IdempotencyTarget } from './idempotency-target';
import type { DB as IdempotencyDB } from './schema.generated';

/** The values one attempt to claim a key binds: the target, a fresh lock token and the store's timings. */
export interface ClaimValues {
  scope: string;
  key: string;
  route: string;
  fingerprint: string;
  lockToken: string;
  ttlMs: number;
  lockTimeoutMs: number;
  /** The advisory lock of (scope, key), as a decimal bigint. */
  lockId: string;
}

/** The relations withClaim adds to a statement: `held` once the advisory lock is taken, one row once claimed. */
export interface ClaimTables {
  idempotency_lock: { held: boolean };
  idempotency_claim: { claimed: number };
}

const millisecondsFromNow = (ms: number) => sql<Date>`now() + ${ms}::float8 * interval '1 millisecond'`;

/**
 * The claim as two common table expressions in front of a statement: `idempotency_lock` tries the
 * advisory lock first, so a second request with the key never waits on the first one's uncommitted row,
 * and `idempotency_claim` then writes the in-progress row (one row when claimed). Only an expired record,
 * or a claim of the same request older than the lock timeout, is replaced; anything else stays and is
 * read apart (replay, reuse, in use). A use case puts its first business statement behind these CTEs,
 * guarded by `EXISTS (SELECT 1 FROM idempotency_claim)`, to save the claim's round trip. `claim` holds
 * the values by name: the statement's own parameters never shift when the claim's change.
 */
export function withClaim<DB>(db: Kysely<DB>, claim: ClaimValues): QueryCreator<DB & ClaimTables> {
  const keys = db as unknown as Kysely<IdempotencyDB & ClaimTables>;
  const creator = keys
    .with(
      (cte) => cte('idempotency_lock').materialized(),
      (qb) => qb.selectNoFrom(sql<boolean>`pg_try_advisory_xact_lock(${claim.lockId}::bigint)`.as('held')),
    )
    .with('idempotency_claim', (qb) =>
      qb
        .insertInto('idempotency_keys')
        .columns(['scope', 'key', 'route', 'fingerprint', 'status', 'lock_token', 'locked_at', 'expires_at'])
        .expression((eb) =>
          eb
            .selectFrom('idempotency_lock')
            .select([
              sql<string>`${claim.scope}::varchar`.as('scope'),
              sql<string>`${claim.key}::varchar`.as('key'),
              sql<string>`${claim.route}::varchar`.as('route'),
              sql<string>`${claim.fingerprint}::text`.as('fingerprint'),
              sql.lit('in_progress').as('status'),
              sql<string>`${claim.lockToken}::uuid`.as('lock_token'),
              sql<Date>`now()`.as('locked_at'),
              millisecondsFromNow(claim.ttlMs).as('expires_at'),
            ])
            .where('held', '=', sql.lit(true)),
        )
        .onConflict((oc) =>
          oc
            .columns(['scope', 'key'])
            .doUpdateSet((eb) => ({
              route: eb.ref('excluded.route'),
              fingerprint: eb.ref('excluded.fingerprint'),
              status: sql.lit('in_progress'),
              lock_token: eb.ref('excluded.lock_token'),
              locked_at: sql<Date>`now()`,
              response_status: sql<null>`NULL`,
              response_body: sql<null>`NULL`,
              created_at: sql<Date>`now()`,
              expires_at: eb.ref('excluded.expires_at'),
            }))
            .where(({ eb, or, and, ref }) =>
              or([
                and([
                  eb('idempotency_keys.status', '=', sql.lit('completed')),
                  eb('idempotency_keys.expires_at', '<', sql<Date>`now()`),
                ]),
                and([
                  eb('idempotency_keys.status', '=', sql.lit('in_progress')),
                  eb(
                    'idempotency_keys.locked_at',
                    '<',
                    sql<Date>`now() - ${claim.lockTimeoutMs}::float8 * interval '1 millisecond'`,
                  ),
                  or([
                    eb('idempotency_keys.expires_at', '<', sql<Date>`now()`),
                    and([
                      eb('idempotency_keys.route', '=', ref('excluded.route')),
                      eb('idempotency_keys.fingerprint', '=', ref('excluded.fingerprint')),
                    ]),
                  ]),
                ]),
              ]),
            ),
        )
        .returning(sql<number>`1`.as('claimed')),
    );
  return creator as unknown as QueryCreator<DB & ClaimTables>;
}

/** Whether the claim of a statement built on withClaim took the key: select it beside `idempotency_lock.held`. */
export const claimedKey = sql<boolean>`EXISTS (SELECT 1 FROM idempotency_claim)`;

/** The claim on its own, as the first statement of the business transaction. */
const CLAIM_IN_TRANSACTION = preparedFor(queryBuilder<IdempotencyDB>())(
  'idempotency_claim_in_transaction',
  (db, claim: ClaimValues) =>
    withClaim(db, claim)
      .selectFrom('idempotency_lock')
      .select(['held', claimedKey.as('claimed')]),
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
  async claimInTransaction(manager: SqlTarget, target: IdempotencyTarget): Promise<ClaimOutcome> {
    const claim = this.claimParameters(target);
    const row = (await CLAIM_IN_TRANSACTION.first(manager, claim))!;
    return this.claimOutcome(manager, target, claim, row.held, row.claimed);
  }

  /** The values of `withClaim` for one attempt to claim the target (a fresh lock token each time). */
  claimParameters(target: IdempotencyTarget): ClaimValues {
    return {
      scope: target.scope,
      key: target.key,
      route: target.route,
      fingerprint: target.fingerprint,
      lockToken: randomUUID(),
      ttlMs: this.options.ttlMs,
      lockTimeoutMs: this.options.lockTimeoutMs,
      lockId: advisoryLockId(target.scope, target.key),
    };
  }

  /** What a claim made with `parameters` came to, from the `held` and `claimed` its statement returned. */
  async claimOutcome(
    manager: SqlTarget,
    target: IdempotencyTarget,
    parameters: ClaimValues,
    held: boolean,
    claimed: boolean,
  ): Promise<ClaimOutcome> {
    if (claimed)
      return { kind: 'claimed', claim: { scope: target.scope, key: target.key, lockToken: parameters.lockToken } };
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
  async complete(manager: SqlTarget, claim: Claim, status: number, body: string): Promise<void> {
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
  private async existingAnswer(on: SqlTarget, target: IdempotencyTarget): Promise<ClaimOutcome> {
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
