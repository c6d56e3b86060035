import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { claimCtes } from '@app/idempotency';
import { NamedStatement, namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Template, TemplateType } from '../templates/entities/template.entity';
import type { CredentialDto } from './dto/credential.dto';
import { Voucher, VoucherStatus } from './entities/voucher.entity';
import type { VoucherViewSource } from './voucher.view';

export type CredentialType = CredentialDto['type'];

/** A credential as the database knows it: its keyed hash. */
export interface CredentialKey {
  type: CredentialType;
  hash: string;
}

/**
 * The id of the voucher a credential names, as a subquery over $1 (application id) and $2 (hash).
 * A code may be reused after its voucher was redeemed or expired: the live voucher wins, then the newest.
 */
const VOUCHER_ID_BY_CREDENTIAL: Record<CredentialType, string> = {
  qr_token: `SELECT id FROM vouchers WHERE application_id = $1 AND qr_token_hash = $2`,
  redeem_code: `SELECT id FROM vouchers WHERE application_id = $1 AND code_hash = $2
                 ORDER BY CASE WHEN status IN ('available', 'revoked') THEN 0 ELSE 1 END, issued_at DESC LIMIT 1`,
};

/** The columns of the application-facing voucher view, named as the view reads them. */
export const VOUCHER_VIEW_COLUMNS = `id, template_id AS "templateId", status, recipient_user_id AS "recipientUserId",
  external_issue_id AS "externalIssueId", valid_from AS "validFrom", valid_to AS "validTo",
  issued_at AS "issuedAt", redeemed_at AS "redeemedAt"`;

/**
 * The CTE `redeemed`: the voucher `voucherId` (an SQL expression) consumed while it is available and
 * valid, and only once the relation `gate` has a row (the idempotency claim), returning its view
 * columns. Redeem splices it in after the claim, so a redemption stays one statement.
 */
export function redeemedVoucherCte(voucherId: string, gate: string): string {
  return `redeemed AS (
         UPDATE vouchers SET status = 'redeemed', redeemed_at = now(), updated_at = now()
          WHERE id = (${voucherId}) AND status = 'available' AND valid_from <= now() AND valid_to > now()
            AND EXISTS (SELECT 1 FROM ${gate})
         RETURNING ${VOUCHER_VIEW_COLUMNS})`;
}

/**
 * One prepared statement per credential type, around the subquery that finds the voucher: a shared
 * text with OR-ed predicates would lose its index.
 */
export function perCredentialType(
  name: string,
  text: (voucherId: string) => string,
): Record<CredentialType, NamedStatement> {
  return {
    qr_token: namedStatement(`${name}_by_qr_token`, text(VOUCHER_ID_BY_CREDENTIAL.qr_token)),
    redeem_code: namedStatement(`${name}_by_code`, text(VOUCHER_ID_BY_CREDENTIAL.redeem_code)),
  };
}

const FIND = perCredentialType(
  'voucher_find',
  (voucherId) => `SELECT ${VOUCHER_VIEW_COLUMNS} FROM vouchers WHERE id = (${voucherId})`,
);

/** The voucher as it is now; an available one past its validity is marked expired in the same statement. */
const VERIFY = perCredentialType(
  'voucher_verify',
  (voucherId) => `
  WITH found AS MATERIALIZED (${voucherId}),
       expired AS (
         UPDATE vouchers SET status = 'expired', updated_at = now()
          WHERE id = (SELECT id FROM found) AND status = 'available' AND valid_to <= now()
         RETURNING ${VOUCHER_VIEW_COLUMNS})
  SELECT * FROM expired
  UNION ALL
  SELECT ${VOUCHER_VIEW_COLUMNS} FROM vouchers
   WHERE id = (SELECT id FROM found) AND NOT EXISTS (SELECT 1 FROM expired)`,
);

export type IssuingTemplate = Pick<
  Template,
  | 'id'
  | 'applicationId'
  | 'status'
  | 'validFrom'
  | 'validTo'
  | 'daysAfterClaim'
  | 'perUserLimit'
  | 'issueLimit'
  | 'issuedCount'
  | 'allocatedCount'
>;

/** The claim's outcome and what an issue checks; the template columns are null when it does not exist. */
export interface IssueChecks extends IssuingTemplate {
  claimHeld: boolean;
  claimed: boolean;
  /** The recipient rule: the user authorised the application or already holds one of its vouchers. */
  recipientAuthorized: boolean;
  /** external_issue_id is already used in the application. */
  duplicate: boolean;
}

/**
 * The idempotency claim, and everything an issue checks before it writes, in one round trip: the
 * template, the recipient rule and a reused external_issue_id, read without locks.
 * $1 application id, $2 template id, $3 recipient, $4 external issue id, $5… the claim's parameters.
 */
const CLAIM_AND_CHECK_ISSUE = namedStatement(
  'voucher_issue_claim_and_checks',
  `WITH ${claimCtes(5)}
   SELECT idempotency_lock.held AS "claimHeld", EXISTS (SELECT 1 FROM idempotency_claim) AS claimed, checks.*
     FROM idempotency_lock
     LEFT JOIN (
       SELECT t.id, t.application_id AS "applicationId", t.status, t.valid_from AS "validFrom", t.valid_to AS "validTo",
              t.days_after_claim AS "daysAfterClaim", t.per_user_limit AS "perUserLimit", t.issue_limit AS "issueLimit",
              t.issued_count AS "issuedCount", t.allocated_count AS "allocatedCount",
              (EXISTS (SELECT 1 FROM authorizations WHERE application_id = $1 AND user_id = $3)
               OR EXISTS (SELECT 1 FROM vouchers WHERE application_id = $1 AND recipient_user_id = $3))
                AS "recipientAuthorized",
              EXISTS (SELECT 1 FROM vouchers WHERE application_id = $1 AND external_issue_id = $4) AS duplicate
         FROM templates t WHERE t.id = $2::uuid AND t.application_id = $1) checks ON true`,
);

/**
 * The arbiter is the partial unique index on live codes: a clash inserts nothing and the caller draws
 * again, while any other unique violation (e.g. external_issue_id) still raises.
 */
const INSERT_VOUCHER = namedStatement(
  'voucher_insert',
  `INSERT INTO vouchers (id, application_id, template_id, recipient_user_id, external_issue_id, valid_from, valid_to,
                         issued_at, qr_token_hash, qr_token_enc, code_hash, code_enc, send_id)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
   ON CONFLICT (application_id, code_hash) WHERE status NOT IN ('redeemed', 'expired') DO NOTHING
   RETURNING issuance_id AS "issuanceId", ${VOUCHER_VIEW_COLUMNS}`,
);

/** A created voucher as its callers answer with it: the view's columns and the issuance id. */
export interface CreatedVoucher extends VoucherViewSource {
  issuanceId: string;
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

/** A voucher in the holder's wallet: with its template's and application's names and the sealed credentials. */
export interface HolderVoucherRow {
  id: string;
  application_id: string;
  application_name: string;
  template_id: string;
  template_name: string;
  type: TemplateType;
  issuer_name: string;
  fulfiller_name: string;
  description: string | null;
  cover_file_id: string | null;
  status: VoucherStatus;
  send_id: string | null;
  valid_from: Date;
  valid_to: Date;
  issued_at: Date;
  redeemed_at: Date | null;
  qr_token_enc: string;
  code_enc: string;
}

/** A unique or check violation of the given constraint, whether raised through TypeORM or pg directly. */
export function violates(error: unknown, constraint: string): boolean {
  const driverError = (error instanceof QueryFailedError ? error.driverError : error) as {
    code?: string;
    constraint?: string;
  };
  return (driverError?.code === '23505' || driverError?.code === '23514') && driverError.constraint === constraint;
}

/**
 * The owner of `vouchers`: finding a voucher by credential, verifying, issuing (its checks and the
 * insert), revoking, and the state moves of a reversal. A live code (not redeemed or expired) is
 * unique within its application.
 */
@Injectable()
export class VouchersStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByCredential(
    on: EntityManager | DataSource,
    applicationId: string,
    key: CredentialKey,
  ): Promise<VoucherViewSource | undefined> {
    const { rows } = await runNamed<VoucherViewSource>(on, FIND[key.type], [applicationId, key.hash]);
    return rows[0];
  }

  /** The voucher as it is now, marked expired on the way when it is available but past its validity. */
  async verify(applicationId: string, key: CredentialKey): Promise<VoucherViewSource | undefined> {
    const { rows } = await runNamed<VoucherViewSource>(this.dataSource, VERIFY[key.type], [applicationId, key.hash]);
    return rows[0];
  }

  /** Claims the idempotency key (its parameters last) and reads what the issue checks, in one statement. */
  async claimAndCheckIssue(
    manager: EntityManager,
    parameters: [applicationId: string, templateId: string, recipient: string, externalIssueId: string],
    claimParameters: unknown[],
  ): Promise<IssueChecks> {
    const { rows } = await runNamed<IssueChecks>(manager, CLAIM_AND_CHECK_ISSUE, [...parameters, ...claimParameters]);
    return rows[0];
  }

  /** The new voucher, or undefined when its code clashed with a live code of the application (draw again). */
  async insert(manager: EntityManager, voucher: NewVoucher): Promise<CreatedVoucher | undefined> {
    const { rows } = await runNamed<CreatedVoucher>(manager, INSERT_VOUCHER, [
      voucher.id,
      voucher.applicationId,
      voucher.templateId,
      voucher.recipientUserId,
      voucher.externalIssueId,
      voucher.validFrom,
      voucher.validTo,
      voucher.issuedAt,
      voucher.qrTokenHash,
      voucher.qrTokenEnc,
      voucher.codeHash,
      voucher.codeEnc,
      voucher.sendId,
    ]);
    return rows[0];
  }

  /** available → revoked. Returns the voucher as it is afterwards (null when none) and whether it moved. */
  async revoke(
    manager: EntityManager,
    applicationId: string,
    voucherId: string,
  ): Promise<{ voucher: Voucher | null; revoked: boolean }> {
    const [, revoked]: [unknown, number] = await manager.query(
      `UPDATE vouchers SET status = 'revoked', revoked_at = now(), updated_at = now()
        WHERE id = $1 AND application_id = $2 AND status = 'available'`,
      [voucherId, applicationId],
    );
    return { voucher: await manager.findOneBy(Voucher, { id: voucherId, applicationId }), revoked: revoked === 1 };
  }

  /** The voucher with its row locked for the rest of the transaction. */
  lock(manager: EntityManager, voucherId: string): Promise<Voucher> {
    return manager.findOneOrFail(Voucher, { where: { id: voucherId }, lock: { mode: 'pessimistic_write' } });
  }

  get(manager: EntityManager, voucherId: string): Promise<Voucher> {
    return manager.findOneByOrFail(Voucher, { id: voucherId });
  }

  /** A reversed redemption gives the voucher back: available again, or expired when its validity has ended. */
  async unredeem(manager: EntityManager, voucherId: string, status: 'available' | 'expired'): Promise<void> {
    await manager.query(
      `UPDATE vouchers SET status = $2, redeemed_at = NULL, updated_at = now() WHERE id = $1 AND status = 'redeemed'`,
      [voucherId, status],
    );
  }

  /** Whether another live voucher of the application holds this voucher's code. */
  async codeTakenByAnother(manager: EntityManager, voucherId: string, applicationId: string): Promise<boolean> {
    const clash: unknown[] = await manager.query(
      `SELECT 1 FROM vouchers other JOIN vouchers mine ON mine.id = $1
        WHERE other.application_id = $2 AND other.code_hash = mine.code_hash AND other.id <> mine.id
          AND other.status NOT IN ('redeemed', 'expired')`,
      [voucherId, applicationId],
    );
    return clash.length > 0;
  }

  async liveCodeTaken(manager: EntityManager, applicationId: string, codeHash: string): Promise<boolean> {
    const taken: unknown[] = await manager.query(
      `SELECT 1 FROM vouchers WHERE application_id = $1 AND code_hash = $2 AND status NOT IN ('redeemed', 'expired')`,
      [applicationId, codeHash],
    );
    return taken.length > 0;
  }

  async replaceCode(manager: EntityManager, voucherId: string, codeHash: string, codeEnc: string): Promise<void> {
    await manager.query(`UPDATE vouchers SET code_hash = $2, code_enc = $3, updated_at = now() WHERE id = $1`, [
      voucherId,
      codeHash,
      codeEnc,
    ]);
  }

  /** One page of the user's vouchers, newest first, and how many they hold in all. */
  async listForHolder(
    userId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: HolderVoucherRow[]; total: number }> {
    const rows: Array<HolderVoucherRow & { total: string }> = await this.dataSource.query(
      `SELECT v.id, v.application_id, a.name AS application_name, v.template_id, t.name AS template_name, t.type,
              t.issuer_name, t.fulfiller_name, t.description, t.cover_file_id, v.status, v.send_id,
              v.valid_from, v.valid_to, v.issued_at, v.redeemed_at, v.qr_token_enc, v.code_enc,
              count(*) OVER () AS total
         FROM vouchers v
         JOIN templates t ON t.id = v.template_id
         JOIN applications a ON a.id = v.application_id
        WHERE v.recipient_user_id = $1
        ORDER BY v.issued_at DESC, v.id DESC
        LIMIT $2 OFFSET $3`,
      [userId, limit, offset],
    );
    const total = rows.length > 0 ? Number(rows[0].total) : await this.countForHolder(userId);
    return { rows, total };
  }

  private async countForHolder(userId: string): Promise<number> {
    const [row]: { total: string }[] = await this.dataSource.query(
      `SELECT count(*) AS total FROM vouchers WHERE recipient_user_id = $1`,
      [userId],
    );
    return Number(row.total);
  }
}
