import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { namedStatement, runNamed } from '@app/platform';
import type { EntityManager } from 'typeorm';
import type { Template } from '../templates/entities/template.entity';
import { VoucherCredentials } from './voucher-credentials';
import { VOUCHER_VIEW_COLUMNS } from './voucher-lookup';
import type { VoucherViewSource } from './voucher.view';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A code clash needs another live voucher of the same application with the same 6 characters; a few retries suffice. */
const CODE_ATTEMPTS = 8;

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

export interface CreateVoucherOptions {
  /** The caller's issue number (runtime issue). */
  externalIssueId?: string;
  /** The send the voucher was claimed from (holder claim). */
  sendId?: string;
  /** The moment of issue or claim; relative validity counts from it. */
  now?: Date;
}

/**
 * Creates a voucher with fresh credentials inside the caller's transaction. It takes no stock and
 * checks no limit: the use case (issue, claim) has done that before calling.
 */
@Injectable()
export class VoucherFactory {
  constructor(private readonly credentials: VoucherCredentials) {}

  async create(
    manager: EntityManager,
    template: Pick<Template, 'id' | 'applicationId' | 'validFrom' | 'validTo' | 'daysAfterClaim'>,
    recipientUserId: string,
    options: CreateVoucherOptions = {},
  ): Promise<CreatedVoucher> {
    const now = options.now ?? new Date();
    const [validFrom, validTo] =
      template.daysAfterClaim !== null
        ? [now, new Date(now.getTime() + template.daysAfterClaim * DAY_MS)]
        : [template.validFrom!, template.validTo!];
    const id = randomUUID();
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const { qrToken, code } = this.credentials.generate();
      const { rows } = await runNamed<CreatedVoucher>(manager, INSERT_VOUCHER, [
        id,
        template.applicationId,
        template.id,
        recipientUserId,
        options.externalIssueId ?? null,
        validFrom,
        validTo,
        now,
        this.credentials.qrTokenHash(qrToken),
        this.credentials.encrypt(id, 'qr_token', qrToken),
        this.credentials.codeHash(template.applicationId, code),
        this.credentials.encrypt(id, 'redeem_code', code),
        options.sendId ?? null,
      ]);
      if (rows.length === 1) return rows[0];
    }
    throw new Error('could not draw a unique voucher code');
  }

  /**
   * Gives a voucher that becomes live again (reversal) a new code when its old one has meanwhile been
   * handed to another live voucher of the application. Returns true when the code was replaced.
   */
  async ensureLiveCodeIsFree(manager: EntityManager, voucherId: string, applicationId: string): Promise<boolean> {
    const clash: unknown[] = await manager.query(
      `SELECT 1 FROM vouchers other JOIN vouchers mine ON mine.id = $1
        WHERE other.application_id = $2 AND other.code_hash = mine.code_hash AND other.id <> mine.id
          AND other.status NOT IN ('redeemed', 'expired')`,
      [voucherId, applicationId],
    );
    if (clash.length === 0) return false;
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const code = this.credentials.generateCode();
      const codeHash = this.credentials.codeHash(applicationId, code);
      const taken: unknown[] = await manager.query(
        `SELECT 1 FROM vouchers WHERE application_id = $1 AND code_hash = $2 AND status NOT IN ('redeemed', 'expired')`,
        [applicationId, codeHash],
      );
      if (taken.length > 0) continue;
      await manager.query(`UPDATE vouchers SET code_hash = $2, code_enc = $3, updated_at = now() WHERE id = $1`, [
        voucherId,
        codeHash,
        this.credentials.encrypt(voucherId, 'redeem_code', code),
      ]);
      return true;
    }
    throw new Error('could not draw a unique voucher code');
  }
}
