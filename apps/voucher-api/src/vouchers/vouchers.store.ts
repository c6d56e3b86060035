import { Injectable } from '@nestjs/common';
import { ClaimValues, claimedKey, withClaim } from '@app/idempotency';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { Compilable, Expression, Kysely, SelectQueryBuilder, sql } from 'kysely';
import { db, prepared, VoucherDB } from '../database/query';
import type { CredentialDto } from './dto/credential.dto';
import type { VoucherViewSource } from './voucher.view';

export type CredentialType = CredentialDto['type'];

/** A credential as the database knows it: its keyed hash. */
export interface CredentialKey {
  type: CredentialType;
  hash: string;
}

/** What names a voucher by credential: the application and the credential's keyed hash. */
export interface CredentialParameters {
  applicationId: string;
  credentialHash: string;
}

type VoucherIdQuery = SelectQueryBuilder<VoucherDB, 'vouchers', { id: string }>;

/**
 * The id of the voucher a credential names, as a subquery. A code may be reused after its voucher was
 * redeemed or expired: the live voucher wins, then the newest.
 */
const VOUCHER_ID_BY_CREDENTIAL: Record<
  CredentialType,
  (db: Kysely<VoucherDB>, p: CredentialParameters) => VoucherIdQuery
> = {
  qr_token: (db, p) =>
    db
      .selectFrom('vouchers')
      .select('id')
      .where('application_id', '=', p.applicationId)
      .where('qr_token_hash', '=', p.credentialHash),
  redeem_code: (db, p) =>
    db
      .selectFrom('vouchers')
      .select('id')
      .where('application_id', '=', p.applicationId)
      .where('code_hash', '=', p.credentialHash)
      .orderBy(sql`CASE WHEN status IN ('available', 'revoked') THEN 0 ELSE 1 END`)
      .orderBy('issued_at', 'desc')
      .limit(sql.lit(1)),
};

/** The columns of the application-facing voucher view, named as the view reads them. */
export const VOUCHER_VIEW = [
  'id',
  'template_id as templateId',
  'status',
  'recipient_user_id as recipientUserId',
  'external_issue_id as externalIssueId',
  'valid_from as validFrom',
  'valid_to as validTo',
  'issued_at as issuedAt',
  'redeemed_at as redeemedAt',
] as const;

/** Neither redeemed nor expired: the vouchers whose codes are unique within their application. */
const LIVE = sql<boolean>`status NOT IN ('redeemed', 'expired')`;

/**
 * The voucher `voucherId` consumed while it is available and valid, and only once `gate` holds (the
 * idempotency claim), returning its view columns: the CTE `redeemed` of a redemption's one statement.
 */
export function redeemVoucher(db: Kysely<VoucherDB>, voucherId: VoucherIdQuery, gate: Expression<boolean>) {
  return db
    .updateTable('vouchers')
    .set({ status: sql.lit('redeemed'), redeemed_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', voucherId)
    .where('status', '=', sql.lit('available'))
    .where('valid_from', '<=', sql<Date>`now()`)
    .where('valid_to', '>', sql<Date>`now()`)
    .where(gate)
    .returning(VOUCHER_VIEW);
}

/**
 * One prepared statement per credential type, around the subquery that finds the voucher: a shared
 * text with OR-ed predicates would lose its index.
 */
export function perCredentialType<P extends CredentialParameters, R>(
  name: string,
  build: (db: Kysely<VoucherDB>, p: P, voucherId: VoucherIdQuery) => Compilable<R>,
) {
  return {
    qr_token: prepared(`${name}_by_qr_token`, (db, p: P) => build(db, p, VOUCHER_ID_BY_CREDENTIAL.qr_token(db, p))),
    redeem_code: prepared(`${name}_by_code`, (db, p: P) => build(db, p, VOUCHER_ID_BY_CREDENTIAL.redeem_code(db, p))),
  };
}

const FIND = perCredentialType('voucher_find', (db, _p: CredentialParameters, voucherId) =>
  db.selectFrom('vouchers').select(VOUCHER_VIEW).where('id', '=', voucherId),
);

/** The voucher as it is now; an available one past its validity is marked expired in the same statement. */
const VERIFY = perCredentialType('voucher_verify', (db, _p: CredentialParameters, voucherId) =>
  db
    .with(
      (cte) => cte('found').materialized(),
      () => voucherId,
    )
    .with('expired', (qb) =>
      qb
        .updateTable('vouchers')
        .set({ status: sql.lit('expired'), updated_at: sql`now()` })
        .where('id', '=', (eb) => eb.selectFrom('found').select('id'))
        .where('status', '=', sql.lit('available'))
        .where('valid_to', '<=', sql<Date>`now()`)
        .returning(VOUCHER_VIEW),
    )
    .selectFrom('expired')
    .selectAll()
    .unionAll((eb) =>
      eb
        .selectFrom('vouchers')
        .select(VOUCHER_VIEW)
        .where('id', '=', (eb) => eb.selectFrom('found').select('id'))
        .where((eb) => eb.not(eb.exists(eb.selectFrom('expired').select(sql.lit(1).as('one'))))),
    ),
);

/** What an issue checks, by name: the claim's values and the request's. */
export interface IssueCheckParameters extends ClaimValues {
  applicationId: string;
  templateId: string;
  recipient: string;
  externalIssueId: string;
}

/**
 * The idempotency claim, and everything an issue checks before it writes, in one round trip: the
 * template, the recipient rule and a reused external_issue_id, read without locks. The template's
 * columns are null when it does not exist.
 */
const CLAIM_AND_CHECK_ISSUE = prepared('voucher_issue_claim_and_checks', (db, p: IssueCheckParameters) =>
  withClaim(db, p)
    .selectFrom('idempotency_lock')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom('templates as t')
          .select([
            't.id',
            't.application_id as applicationId',
            't.status',
            't.valid_from as validFrom',
            't.valid_to as validTo',
            't.days_after_claim as daysAfterClaim',
            't.per_user_limit as perUserLimit',
            't.issue_limit as issueLimit',
            't.issued_count as issuedCount',
            't.allocated_count as allocatedCount',
            (eb) =>
              eb
                .or([
                  eb.exists(
                    eb
                      .selectFrom('authorizations')
                      .select(sql.lit(1).as('one'))
                      .where('application_id', '=', p.applicationId)
                      .where('user_id', '=', p.recipient),
                  ),
                  eb.exists(
                    eb
                      .selectFrom('vouchers')
                      .select(sql.lit(1).as('one'))
                      .where('application_id', '=', p.applicationId)
                      .where('recipient_user_id', '=', p.recipient),
                  ),
                ])
                .$castTo<boolean>()
                .as('recipientAuthorized'),
            (eb) =>
              eb
                .exists(
                  eb
                    .selectFrom('vouchers')
                    .select(sql.lit(1).as('one'))
                    .where('application_id', '=', p.applicationId)
                    .where('external_issue_id', '=', p.externalIssueId),
                )
                .$castTo<boolean>()
                .as('duplicate'),
          ])
          .where('t.id', '=', sql<string>`${p.templateId}::uuid`)
          .where('t.application_id', '=', p.applicationId)
          .as('checks'),
      (join) => join.onTrue(),
    )
    .select(['idempotency_lock.held as claimHeld', claimedKey.as('claimed')])
    .selectAll('checks'),
);

/** The claim's outcome and the issue's checks, the template's columns null when it does not exist. */
export type IssueChecks = RowOf<typeof CLAIM_AND_CHECK_ISSUE>;

/** The checks of an existing template: every column of the template present. */
export type IssuingTemplate = {
  [K in keyof IssueChecks]: K extends 'validFrom' | 'validTo' | 'daysAfterClaim'
    ? IssueChecks[K]
    : NonNullable<IssueChecks[K]>;
};

/** Whether the checks found the template (their template columns are then all present). */
export function templateFound(checks: IssueChecks): checks is IssuingTemplate {
  return checks.id !== null;
}

/** Everything stored of a new voucher; the credentials arrive already hashed and encrypted. */
export interface NewVoucher {
  id: string;
  applicationId: string;
  templateId: string;
  recipientUserId: string;
  externalIssueId: string | null;
  validFrom: Date;
  validTo: Date;
  issuedAt: Date;
  qrTokenHash: string;
  qrTokenEnc: string;
  codeHash: string;
  codeEnc: string;
  sendId: string | null;
}

/**
 * The arbiter is the partial unique index on live codes: a clash inserts nothing and the caller draws
 * again, while any other unique violation (e.g. external_issue_id) still raises.
 */
const INSERT_VOUCHER = prepared('voucher_insert', (db, v: NewVoucher) =>
  db
    .insertInto('vouchers')
    .values({
      id: v.id,
      application_id: v.applicationId,
      template_id: v.templateId,
      recipient_user_id: v.recipientUserId,
      external_issue_id: v.externalIssueId,
      valid_from: v.validFrom,
      valid_to: v.validTo,
      issued_at: v.issuedAt,
      qr_token_hash: v.qrTokenHash,
      qr_token_enc: v.qrTokenEnc,
      code_hash: v.codeHash,
      code_enc: v.codeEnc,
      send_id: v.sendId,
    })
    .onConflict((oc) => oc.columns(['application_id', 'code_hash']).where(LIVE).doNothing())
    .returning(['issuance_id as issuanceId', ...VOUCHER_VIEW]),
);

/** A created voucher as its callers answer with it: the view's columns and the issuance id. */
export type CreatedVoucher = RowOf<typeof INSERT_VOUCHER>;

/** One page of a holder's wallet: each voucher with its template's and application's names and the sealed credentials. */
function holderPage(userId: string, limit: number, offset: number) {
  return db
    .selectFrom('vouchers as v')
    .innerJoin('templates as t', 't.id', 'v.template_id')
    .innerJoin('applications as a', 'a.id', 'v.application_id')
    .select([
      'v.id',
      'v.application_id',
      'a.name as application_name',
      'v.template_id',
      't.name as template_name',
      't.type',
      't.issuer_name',
      't.fulfiller_name',
      't.description',
      't.cover_file_id',
      'v.status',
      'v.send_id',
      'v.valid_from',
      'v.valid_to',
      'v.issued_at',
      'v.redeemed_at',
      'v.qr_token_enc',
      'v.code_enc',
      sql<string>`count(*) OVER ()`.as('total'),
    ])
    .where('v.recipient_user_id', '=', userId)
    .orderBy('v.issued_at', 'desc')
    .orderBy('v.id', 'desc')
    .limit(limit)
    .offset(offset);
}

/** A voucher in the holder's wallet, as holderPage reads it. */
export type HolderVoucherRow = Omit<RowOf<ReturnType<typeof holderPage>>, 'total'>;

/**
 * The owner of `vouchers`: finding a voucher by credential, verifying, issuing (its checks and the
 * insert), revoking, and the state moves of a reversal. A live code (not redeemed or expired) is
 * unique within its application.
 */
@Injectable()
export class VouchersStore {
  constructor(private readonly database: Database) {}

  async findByCredential(
    on: SqlTarget,
    applicationId: string,
    key: CredentialKey,
  ): Promise<VoucherViewSource | undefined> {
    return FIND[key.type].first(on, { applicationId, credentialHash: key.hash });
  }

  /** The voucher as it is now, marked expired on the way when it is available but past its validity. */
  async verify(applicationId: string, key: CredentialKey): Promise<VoucherViewSource | undefined> {
    return VERIFY[key.type].first(this.database, { applicationId, credentialHash: key.hash });
  }

  /** Claims the idempotency key and reads what the issue checks, in one statement. */
  async claimAndCheckIssue(on: SqlTarget, parameters: IssueCheckParameters): Promise<IssueChecks> {
    return (await CLAIM_AND_CHECK_ISSUE.first(on, parameters))!;
  }

  /** The new voucher, or undefined when its code clashed with a live code of the application (draw again). */
  async insert(on: SqlTarget, voucher: NewVoucher): Promise<CreatedVoucher | undefined> {
    return INSERT_VOUCHER.first(on, voucher);
  }

  /** available → revoked. Returns the voucher as it is afterwards (undefined when none) and whether it moved. */
  async revoke(
    on: SqlTarget,
    applicationId: string,
    voucherId: string,
  ): Promise<{ voucher: VoucherViewSource | undefined; revoked: boolean }> {
    const { rowCount } = await execute(
      on,
      db
        .updateTable('vouchers')
        .set({ status: 'revoked', revoked_at: sql`now()`, updated_at: sql`now()` })
        .where('id', '=', voucherId)
        .where('application_id', '=', applicationId)
        .where('status', '=', 'available'),
    );
    const voucher = await executeFirst(
      on,
      db
        .selectFrom('vouchers')
        .select(VOUCHER_VIEW)
        .where('id', '=', voucherId)
        .where('application_id', '=', applicationId),
    );
    return { voucher, revoked: rowCount === 1 };
  }

  /** The voucher's view with its row locked for the rest of the transaction. */
  async lock(on: SqlTarget, voucherId: string): Promise<VoucherViewSource> {
    const voucher = await executeFirst(
      on,
      db.selectFrom('vouchers').select(VOUCHER_VIEW).where('id', '=', voucherId).forUpdate(),
    );
    if (!voucher) throw new Error(`voucher ${voucherId} is gone`);
    return voucher;
  }

  async get(on: SqlTarget, voucherId: string): Promise<VoucherViewSource> {
    const voucher = await executeFirst(on, db.selectFrom('vouchers').select(VOUCHER_VIEW).where('id', '=', voucherId));
    if (!voucher) throw new Error(`voucher ${voucherId} is gone`);
    return voucher;
  }

  /** A reversed redemption gives the voucher back: available again, or expired when its validity has ended. */
  async unredeem(on: SqlTarget, voucherId: string, status: 'available' | 'expired'): Promise<void> {
    await execute(
      on,
      db
        .updateTable('vouchers')
        .set({ status, redeemed_at: null, updated_at: sql`now()` })
        .where('id', '=', voucherId)
        .where('status', '=', 'redeemed'),
    );
  }

  /** Whether another live voucher of the application holds this voucher's code. */
  async codeTakenByAnother(on: SqlTarget, voucherId: string, applicationId: string): Promise<boolean> {
    const clash = await executeAll(
      on,
      db
        .selectFrom('vouchers as other')
        .innerJoin('vouchers as mine', (join) => join.on('mine.id', '=', voucherId))
        .select(sql.lit(1).as('one'))
        .where('other.application_id', '=', applicationId)
        .whereRef('other.code_hash', '=', 'mine.code_hash')
        .whereRef('other.id', '<>', 'mine.id')
        .where('other.status', 'not in', ['redeemed', 'expired']),
    );
    return clash.length > 0;
  }

  async liveCodeTaken(on: SqlTarget, applicationId: string, codeHash: string): Promise<boolean> {
    const taken = await executeAll(
      on,
      db
        .selectFrom('vouchers')
        .select(sql.lit(1).as('one'))
        .where('application_id', '=', applicationId)
        .where('code_hash', '=', codeHash)
        .where(LIVE),
    );
    return taken.length > 0;
  }

  async replaceCode(on: SqlTarget, voucherId: string, codeHash: string, codeEnc: string): Promise<void> {
    await execute(
      on,
      db
        .updateTable('vouchers')
        .set({ code_hash: codeHash, code_enc: codeEnc, updated_at: sql`now()` })
        .where('id', '=', voucherId),
    );
  }

  /** One page of the user's vouchers, newest first, and how many they hold in all. */
  async listForHolder(
    userId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: HolderVoucherRow[]; total: number }> {
    const rows = await executeAll(this.database, holderPage(userId, limit, offset));
    const total = rows.length > 0 ? Number(rows[0].total) : await this.countForHolder(userId);
    return { rows, total };
  }

  private async countForHolder(userId: string): Promise<number> {
    const row = await executeFirst(
      this.database,
      db
        .selectFrom('vouchers')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .where('recipient_user_id', '=', userId),
    );
    return Number(row!.total);
  }
}
