import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import type { EntityManager } from 'typeorm';
import { GuessingLimiter } from '../rate-limits/guessing-limiter';
import { Voucher } from './entities/voucher.entity';
import { normalizeCode, VoucherCredentials } from './voucher-credentials';
import type { CredentialDto } from './dto/credential.dto';

/** Finds the calling application's voucher for a scanned QR token or a typed code. */
@Injectable()
export class VoucherLookup {
  constructor(
    private readonly credentials: VoucherCredentials,
    private readonly guessing: GuessingLimiter,
  ) {}

  /**
   * Every miss counts against the token's guessing budget and answers 404, whether the credential is
   * unknown or belongs to another application.
   */
  async findByCredential(
    manager: EntityManager,
    applicationId: string,
    tokenId: string,
    credential: CredentialDto,
  ): Promise<Voucher> {
    const voucher = await this.find(manager, applicationId, credential);
    if (!voucher) {
      await this.guessing.recordFailure(tokenId);
      throw ApiError.notFound('Voucher');
    }
    return voucher;
  }

  private async find(
    manager: EntityManager,
    applicationId: string,
    credential: CredentialDto,
  ): Promise<Voucher | null> {
    if (credential.type === 'qr_token') {
      return manager.findOneBy(Voucher, {
        applicationId,
        qrTokenHash: this.credentials.qrTokenHash(credential.value.trim()),
      });
    }
    const code = normalizeCode(credential.value);
    if (!code) return null;
    // A code may be reused after its voucher was redeemed or expired: the live voucher wins, then the newest.
    return manager
      .createQueryBuilder(Voucher, 'v')
      .where('v.application_id = :applicationId AND v.code_hash = :codeHash', {
        applicationId,
        codeHash: this.credentials.codeHash(applicationId, code),
      })
      .orderBy(`CASE WHEN v.status IN ('available', 'revoked') THEN 0 ELSE 1 END`, 'ASC')
      .addOrderBy('v.issued_at', 'DESC')
      .getOne();
  }
}
