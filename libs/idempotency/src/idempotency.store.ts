import { Inject, Injectable } from '@nestjs/common';
import { Database, execute, executeFirst, preparedFor, queryBuilder, SqlTarget } from '@app/platform';
import { Kysely, QueryCreator, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { ensureClaimHeld, judgeStoredKey, keyInUse, keyReused, StoredKeyVerdict } from './idempotency-decisions';
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

/** The idempotency table's typed compiler, and its statements run by name. */
const keys = queryBuilder<IdempotencyDB>();
const prepared = preparedFor(keys);

const milliseconds = (ms: number) => sql<Date>`${ms}::float8 * interval '1 millisecond'`;
const millisecondsFromNow = (ms: number) => sql<Date>`now() + ${milliseconds(ms)}`;
/** Older than `ms` milliseconds ago: a claim whose request presumably died. */
const millisecondsAgo = (ms: number) => sql<Date>`now() - ${milliseconds(ms)}`;

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
                  eb('idempotency_keys.locked_at', '<', millisecondsAgo(claim.lockTimeoutMs)),
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
const CLAIM_IN_TRANSACTION = prepared('idempotency_claim_in_transaction', (db, claim: ClaimValues) =>
  withClaim(db, claim)
    .selectFrom('idempotency_lock')
    .select(['held', claimedKey.as('claimed')]),
);

/** What recording a failure binds, by name. */
interface FailureValues {
  scope: string;
  key: string;
  route: string;
  fingerprint: string;
  ttlMs: number;
  status: number;
  body: string;
  lockId: string;
  lockTimeoutMs: number;
}

/**
 * A deterministic 4xx of a request whose transaction rolled back (or never began): recorded as a
 * completed key in one statement, unless another request with the key runs now or has completed.
 */
const RECORD_FAILURE = prepared('idempotency_record_failure', (db, p: FailureValues) =>
  db
    .with(
      (cte) => cte('lock').materialized(),
      (qb) => qb.selectNoFrom(sql<boolean>`pg_try_advisory_xact_lock(${p.lockId}::bigint)`.as('held')),
    )
    .with('recorded', (qb) =>
      qb
        .insertInto('idempotency_keys')
        .columns(['scope', 'key', 'route', 'fingerprint', 'status', 'response_status', 'response_body', 'expires_at'])
        .expression((eb) =>
          eb
            .selectFrom('lock')
            .select([
              sql<string>`${p.scope}::varchar`.as('scope'),
              sql<string>`${p.key}::varchar`.as('key'),
              sql<string>`${p.route}::varchar`.as('route'),
              sql<string>`${p.fingerprint}::text`.as('fingerprint'),
              sql.lit('completed').as('status'),
              sql<number>`${p.status}::int`.as('response_status'),
              sql<string>`${p.body}::text`.as('response_body'),
              millisecondsFromNow(p.ttlMs).as('expires_at'),
            ])
            .where('held', '=', sql.lit(true)),
        )
        .onConflict((oc) =>
          oc
            .columns(['scope', 'key'])
            .doUpdateSet((eb) => ({
              route: eb.ref('excluded.route'),
              fingerprint: eb.ref('excluded.fingerprint'),
              status: sql.lit('completed'),
              lock_token: sql<null>`NULL`,
              locked_at: sql<null>`NULL`,
              response_status: eb.ref('excluded.response_status'),
              response_body: eb.ref('excluded.response_body'),
              created_at: sql<Date>`now()`,
              expires_at: eb.ref('excluded.expires_at'),
            }))
            .where(({ eb, or, and }) =>
              and([
                eb('idempotency_keys.expires_at', '<', sql<Date>`now()`),
                or([
                  eb('idempotency_keys.status', '=', sql.lit('completed')),
                  eb('idempotency_keys.locked_at', '<', millisecondsAgo(p.lockTimeoutMs)),
                ]),
              ]),
            ),
        )
        .returning(sql<number>`1`.as('one')),
    )
    .selectFrom('lock')
    .select(['lock.held', sql<boolean>`EXISTS (SELECT 1 FROM recorded)`.as('recorded')]),
);

/** Where a stored key is read: its scope and key, and how old a claim may be before it counts as stale. */
interface KeyValues {
  scope: string;
  key: string;
  lockTimeoutMs: number;
}

/** The record that a claim or a failure found in its way; read in a statement of its own so it sees the latest commit. */
const READ_KEY = prepared('idempotency_read_key', (db, p: KeyValues) =>
  db
    .selectFrom('idempotency_keys')
    .select([
      'route',
      'fingerprint',
      'status',
      'response_status',
      'response_body',
      sql<boolean>`locked_at < ${millisecondsAgo(p.lockTimeoutMs)}`.as('stale'),
    ])
    .where('scope', '=', p.scope)
    .where('key', '=', p.key)
    .where('expires_at', '>=', sql<Date>`now()`),
);

/** What completing a claim binds, by name. */
interface CompletionValues {
  scope: string;
  key: string;
  lockToken: string;
  status: number;
  body: string;
  ttlMs: number;
}

/**
 * Marks the claimed key completed with its response, inside the business transaction. The answer is kept
 * for the TTL from the moment it is stored: a request that ran longer than the TTL must still be
 * replayed, not run again, by the retry that follows it. `clock_timestamp()`, since `now()` is the start
 * of a transaction that may have claimed the key long before.
 */
const COMPLETE_KEY = prepared('idempotency_complete_key', (db, p: CompletionValues) =>
  db
    .updateTable('idempotency_keys')
    .set({
      status: sql.lit('completed'),
      response_status: p.status,
      response_body: p.body,
      locked_at: sql<null>`NULL`,
      expires_at: sql<Date>`clock_timestamp() + ${milliseconds(p.ttlMs)}`,
    })
    .where('scope', '=', p.scope)
    .where('key', '=', p.key)
    .where('lock_token', '=', p.lockToken)
    .where('status', '=', sql.lit('in_progress')),
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
    private readonly database: Database,
    @Inject(IDEMPOTENCY_OPTIONS) private readonly options: IdempotencyOptions,
  ) {}

  async claim(scope: string, key: string, route: string, fingerprint: string): Promise<ClaimOutcome> {
    // An expired key whose request still runs (not yet stale) is kept: freeing it would let a retry run twice.
    await execute(
      this.database,
      keys
        .deleteFrom('idempotency_keys')
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('expires_at', '<', sql<Date>`now()`)
        .where((eb) =>
          eb.or([
            eb('status', '=', sql.lit('completed')),
            eb('locked_at', '<', millisecondsAgo(this.options.lockTimeoutMs)),
          ]),
        ),
    );
    const lockToken = this.newLockToken();
    const inserted = await executeFirst(
      this.database,
      keys
        .insertInto('idempotency_keys')
        .values({
          scope,
          key,
          route,
          fingerprint,
          status: sql.lit('in_progress'),
          lock_token: lockToken,
          locked_at: sql<Date>`now()`,
          expires_at: millisecondsFromNow(this.options.ttlMs),
        })
        .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
        .returning(sql<number>`1`.as('one')),
    );
    if (inserted) return { kind: 'claimed', claim: { scope, key, lockToken } };

    const existing = await executeFirst(
      this.database,
      keys
        .selectFrom('idempotency_keys')
        .select([
          'route',
          'fingerprint',
          'status',
          'lock_token',
          'response_status',
          'response_body',
          sql<boolean>`locked_at < ${millisecondsAgo(this.options.lockTimeoutMs)}`.as('stale'),
        ])
        .where('scope', '=', scope)
        .where('key', '=', key),
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
  async claimInTransaction(tx: SqlTarget, target: IdempotencyTarget): Promise<ClaimOutcome> {
    const claim = this.claimParameters(target);
    const row = (await CLAIM_IN_TRANSACTION.first(tx, claim))!;
    return this.claimOutcome(tx, target, claim, row.held, row.claimed);
  }

  /** The values of `withClaim` for one attempt to claim the target (a fresh lock token each time). */
  claimParameters(target: IdempotencyTarget): ClaimValues {
    return {
      scope: target.scope,
      key: target.key,
      route: target.route,
      fingerprint: target.fingerprint,
      lockToken: this.newLockToken(),
      ttlMs: this.options.ttlMs,
      lockTimeoutMs: this.options.lockTimeoutMs,
      lockId: advisoryLockId(target.scope, target.key),
    };
  }

  /** What a claim made with `parameters` came to, from the `held` and `claimed` its statement returned. */
  async claimOutcome(
    tx: SqlTarget,
    target: IdempotencyTarget,
    parameters: ClaimValues,
    held: boolean,
    claimed: boolean,
  ): Promise<ClaimOutcome> {
    if (claimed)
      return { kind: 'claimed', claim: { scope: target.scope, key: target.key, lockToken: parameters.lockToken } };
    if (!held) throw keyInUse();
    return this.existingAnswer(tx, target);
  }

  /**
   * Records the deterministic failure of a request that holds no claim (its transaction rolled back, or
   * it failed before claiming). Another request with the key that runs or completed meanwhile wins:
   * its answer is returned instead; `undefined` means this failure is now the stored answer.
   */
  async recordFailure(target: IdempotencyTarget, status: number, body: string): Promise<Replay | undefined> {
    const { scope, key, route, fingerprint } = target;
    const outcome = (await RECORD_FAILURE.first(this.database, {
      scope,
      key,
      route,
      fingerprint,
      ttlMs: this.options.ttlMs,
      status,
      body,
      lockId: advisoryLockId(scope, key),
      lockTimeoutMs: this.options.lockTimeoutMs,
    }))!;
    if (outcome.recorded) return undefined;
    if (!outcome.held) throw keyInUse();
    const answer = await this.existingAnswer(this.database, target);
    return answer.kind === 'replay' ? answer : undefined;
  }

  /** Marks the key completed inside the business transaction: both commit or neither does. */
  async complete(tx: SqlTarget, claim: Claim, status: number, body: string): Promise<void> {
    const { rowCount } = await COMPLETE_KEY.run(tx, {
      scope: claim.scope,
      key: claim.key,
      lockToken: claim.lockToken,
      status,
      body,
      ttlMs: this.options.ttlMs,
    });
    ensureClaimHeld(rowCount);
  }

  /** A deterministic failure (4xx) is remembered so the same request gets the same answer. */
  async storeFailure(claim: Claim, status: number, body: string): Promise<void> {
    await this.complete(this.database, claim, status, body);
  }

  /** A 5xx releases the key so that a retry with the same key runs again (a committed result stays). */
  async release(claim: Claim): Promise<void> {
    await execute(
      this.database,
      keys
        .deleteFrom('idempotency_keys')
        .where('scope', '=', claim.scope)
        .where('key', '=', claim.key)
        .where('lock_token', '=', claim.lockToken)
        .where('status', '=', sql.lit('in_progress')),
    );
  }

  async purgeExpired(): Promise<number> {
    const { rowCount } = await execute(
      this.database,
      keys
        .deleteFrom('idempotency_keys')
        .where('expires_at', '<', sql<Date>`now()`)
        .where((eb) =>
          eb.or([
            eb('status', '=', sql.lit('completed')),
            eb('locked_at', '<', millisecondsAgo(this.options.lockTimeoutMs)),
          ]),
        ),
    );
    return rowCount ?? 0;
  }

  private async takeOver(scope: string, key: string, previous: string | null): Promise<ClaimOutcome> {
    const lockToken = this.newLockToken();
    const { rowCount } = await execute(
      this.database,
      keys
        .updateTable('idempotency_keys')
        .set({ lock_token: lockToken, locked_at: sql<Date>`now()` })
        .where('scope', '=', scope)
        .where('key', '=', key)
        .where('status', '=', sql.lit('in_progress'))
        .where(sql<boolean>`lock_token IS NOT DISTINCT FROM ${previous}`)
        .returning(sql<number>`1`.as('one')),
    );
    if (rowCount !== 1) throw keyInUse();
    return { kind: 'claimed', claim: { scope, key, lockToken } };
  }

  /**
   * What the key of a request refused before its handler ran meets: 409 REUSED when it belongs to
   * another request, the stored answer of the same request, else nothing (the refusal stands alone).
   */
  async storedAnswer(target: IdempotencyTarget): Promise<Replay | undefined> {
    const stored = await READ_KEY.first(this.database, this.keyValues(target));
    if (!stored) return undefined;
    const verdict = judgeStoredKey(stored, target.route, target.fingerprint);
    if (verdict.kind === 'reused') throw keyReused();
    return verdict.kind === 'replay' ? verdict : undefined;
  }

  /** A key this request could not claim although nobody runs with it: the stored answer, or 409. */
  private async existingAnswer(on: SqlTarget, target: IdempotencyTarget): Promise<ClaimOutcome> {
    const existing = await READ_KEY.first(on, this.keyValues(target));
    if (!existing) throw keyInUse();
    const verdict = this.answerOf(judgeStoredKey(existing, target.route, target.fingerprint));
    // The claim statement already took over a stale claim if it could: one it could not is still in use.
    if (verdict.kind === 'take-over') throw keyInUse();
    return verdict;
  }

  /** Each claim's own token, so a late completion of a superseded claim cannot touch its successor's row. */
  protected newLockToken(): string {
    return randomUUID();
  }

  private keyValues(target: IdempotencyTarget): KeyValues {
    return { scope: target.scope, key: target.key, lockTimeoutMs: this.options.lockTimeoutMs };
  }

  /** The stored answer to replay, a take-over to attempt, or the 409 of a key reused or in use. */
  private answerOf(verdict: StoredKeyVerdict): Replay | { kind: 'take-over' } {
    if (verdict.kind === 'reused') throw keyReused();
    if (verdict.kind === 'in-use') throw keyInUse();
    return verdict;
  }
}
