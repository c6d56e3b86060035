import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import type { AppCaller } from '../applications/app-caller';
import { VoucherErrors } from '../voucher-errors';
import type { VerifyDto } from './dto/verify.dto';
import { VoucherLookup } from './voucher-lookup';
import { toVoucherView, VerifyResult, VoucherView } from './voucher.view';
import { VouchersStore } from './vouchers.store';

@Injectable()
export class VouchersService {
  constructor(
    private readonly database: Database,
    private readonly lookup: VoucherLookup,
    private readonly vouchers: VouchersStore,
  ) {}

  /**
   * Reads the voucher's state in one statement; an available voucher past its validity is marked
   * expired on the way. Never redeems.
   */
  async verify(caller: AppCaller, body: VerifyDto): Promise<VerifyResult> {
    const applicationId = caller.application.id;
    const key = this.lookup.keyOf(applicationId, body.credential);
    if (!key) return this.lookup.miss(caller.tokenId);
    const voucher = await this.vouchers.verify(applicationId, key);
    if (!voucher) return this.lookup.miss(caller.tokenId);
    const now = Date.now();
    const redeemable =
      voucher.status === 'available' && voucher.validFrom.getTime() <= now && voucher.validTo.getTime() > now;
    return { voucher: toVoucherView(voucher), redeemable };
  }

  /** available → revoked; the voucher can no longer be redeemed. */
  async revoke(applicationId: string, voucherId: string): Promise<VoucherView> {
    return this.database.transaction(async (manager) => {
      const { voucher, revoked } = await this.vouchers.revoke(manager, applicationId, voucherId);
      if (!voucher) throw VoucherErrors.notFound('Voucher');
      if (!revoked) throw VoucherErrors.error('CONFLICT', `A voucher in state ${voucher.status} cannot be revoked`);
      return toVoucherView(voucher);
    });
  }
}
