import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { runNamed } from '@app/platform';
import { DataSource } from 'typeorm';
import type { AppCaller } from '../app-auth/app-caller';
import { Voucher } from './entities/voucher.entity';
import type { VerifyDto } from './dto/verify.dto';
import { perCredentialType, VOUCHER_VIEW_COLUMNS, VoucherLookup } from './voucher-lookup';
import { toVoucherView, VerifyResult, VoucherView, VoucherViewSource } from './voucher.view';

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

@Injectable()
export class VouchersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lookup: VoucherLookup,
  ) {}

  /**
   * Reads the voucher's state in one statement; an available voucher past its validity is marked
   * expired on the way. Never redeems.
   */
  async verify(caller: AppCaller, body: VerifyDto): Promise<VerifyResult> {
    const applicationId = caller.application.id;
    const key = this.lookup.keyOf(applicationId, body.credential);
    if (!key) return this.lookup.miss(caller.tokenId);
    const { rows } = await runNamed<VoucherViewSource>(this.dataSource, VERIFY[key.type], [applicationId, key.hash]);
    const voucher = rows[0];
    if (!voucher) return this.lookup.miss(caller.tokenId);
    const now = Date.now();
    const redeemable =
      voucher.status === 'available' && voucher.validFrom.getTime() <= now && voucher.validTo.getTime() > now;
    return { voucher: toVoucherView(voucher), redeemable };
  }

  /** available → revoked; the voucher can no longer be redeemed. */
  async revoke(applicationId: string, voucherId: string): Promise<VoucherView> {
    return this.dataSource.transaction(async (manager) => {
      const [, revoked]: [unknown, number] = await manager.query(
        `UPDATE vouchers SET status = 'revoked', revoked_at = now(), updated_at = now()
          WHERE id = $1 AND application_id = $2 AND status = 'available'`,
        [voucherId, applicationId],
      );
      const voucher = await manager.findOneBy(Voucher, { id: voucherId, applicationId });
      if (!voucher) throw ApiError.notFound('Voucher');
      if (revoked === 0) {
        throw ApiError.conflict('CONFLICT', `A voucher in state ${voucher.status} cannot be revoked`);
      }
      return toVoucherView(voucher);
    });
  }
}
