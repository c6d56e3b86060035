import { Injectable } from '@nestjs/common';
import type { SqlTarget } from '@app/platform';
import { GuessingLimiter } from '../rate-limits/guessing-limiter';
import { VoucherErrors } from '../voucher-errors';
import type { CredentialDto } from './dto/credential.dto';
import { normalizeCode, VoucherCredentials } from './voucher-credentials';
import type { VoucherViewSource } from './voucher.view';
import { CredentialKey, VouchersStore } from './vouchers.store';

/** Finds the calling application's voucher for a scanned QR token or a typed code. */
@Injectable()
export class VoucherLookup {
  constructor(
    private readonly credentials: VoucherCredentials,
    private readonly guessing: GuessingLimiter,
    private readonly vouchers: VouchersStore,
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
    on: SqlTarget,
    applicationId: string,
    tokenId: string,
    key: CredentialKey | null,
  ): Promise<VoucherViewSource> {
    const voucher = key ? await this.vouchers.findByCredential(on, applicationId, key) : undefined;
    return voucher ?? this.miss(tokenId);
  }

  async miss(tokenId: string): Promise<never> {
    await this.guessing.recordFailure(tokenId);
    throw VoucherErrors.notFound('Voucher');
  }
}
