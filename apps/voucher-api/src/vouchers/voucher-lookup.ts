import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { NamedStatement, namedStatement, runNamed } from '@app/platform';
import type { DataSource, EntityManager } from 'typeorm';
import { GuessingLimiter } from '../rate-limits/guessing-limiter';
import type { CredentialDto } from './dto/credential.dto';
import { normalizeCode, VoucherCredentials } from './voucher-credentials';
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
export const VOUCHER_ID_BY_CREDENTIAL: Record<CredentialType, string> = {
  qr_token: `SELECT id FROM vouchers WHERE application_id = $1 AND qr_token_hash = $2`,
  redeem_code: `SELECT id FROM vouchers WHERE application_id = $1 AND code_hash = $2
                 ORDER BY CASE WHEN status IN ('available', 'revoked') THEN 0 ELSE 1 END, issued_at DESC LIMIT 1`,
};

/** The columns of the application-facing voucher view, named as the view reads them. */
export const VOUCHER_VIEW_COLUMNS = `id, template_id AS "templateId", status, recipient_user_id AS "recipientUserId",
  external_issue_id AS "externalIssueId", valid_from AS "validFrom", valid_to AS "validTo",
  issued_at AS "issuedAt", redeemed_at AS "redeemedAt"`;

/** One prepared statement per credential type: a shared text with OR-ed predicates would lose its index. */
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

/** Finds the calling application's voucher for a scanned QR token or a typed code. */
@Injectable()
export class VoucherLookup {
  constructor(
    private readonly credentials: VoucherCredentials,
    private readonly guessing: GuessingLimiter,
  ) {}

  /** The lookup hash of a credential, or null when the value cannot be a code at all. */
  keyOf(applicationId: string, credential: CredentialDto): CredentialKey | null {
    if (credential.type === 'qr_token') {
      return { type: 'qr_token', hash: this.credentials.qrTokenHash(credential.value.trim()) };
    }
    const code = normalizeCode(credential.value);
    return code ? { type: 'redeem_code', hash: this.credentials.codeHash(applicationId, code) } : null;
  }

  /**
   * The voucher as it is now; a miss counts against the token's guessing budget and answers 404,
   * whether the credential is unknown or belongs to another application.
   */
  async findByCredential(
    on: EntityManager | DataSource,
    applicationId: string,
    tokenId: string,
    key: CredentialKey | null,
  ): Promise<VoucherViewSource> {
    const { rows } = key
      ? await runNamed<VoucherViewSource>(on, FIND[key.type], [applicationId, key.hash])
      : { rows: [] };
    if (rows.length === 0) return this.miss(tokenId);
    return rows[0];
  }

  async miss(tokenId: string): Promise<never> {
    await this.guessing.recordFailure(tokenId);
    throw ApiError.notFound('Voucher');
  }
}
