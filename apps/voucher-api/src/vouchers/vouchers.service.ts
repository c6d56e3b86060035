import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import type { AppCaller } from '../app-auth/app-caller';
import { Voucher } from './entities/voucher.entity';
import type { VerifyDto } from './dto/verify.dto';
import { VoucherLookup } from './voucher-lookup';
import { toVoucherView, VerifyResult, VoucherView } from './voucher.view';

@Injectable()
export class VouchersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lookup: VoucherLookup,
  ) {}

  /** Reads the voucher's state; an available voucher past its validity is marked expired. Never redeems. */
  async verify(caller: AppCaller, body: VerifyDto): Promise<VerifyResult> {
    return this.dataSource.transaction(async (manager) => {
      const found = await this.lookup.findByCredential(manager, caller.application.id, caller.tokenId, body.credential);
      const voucher = (await expireIfPastValidity(manager, found.id)) ?? found;
      const now = Date.now();
      const redeemable =
        voucher.status === 'available' && voucher.validFrom.getTime() <= now && voucher.validTo.getTime() > now;
      return { voucher: toVoucherView(voucher), redeemable };
    });
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

/** Conditional, so it is a no-op for anything but an available voucher whose validity has ended. */
export async function expireIfPastValidity(manager: EntityManager, voucherId: string): Promise<Voucher | null> {
  const [rows]: [Array<{ id: string }>, number] = await manager.query(
    `UPDATE vouchers SET status = 'expired', updated_at = now()
      WHERE id = $1 AND status = 'available' AND valid_to <= now() RETURNING id`,
    [voucherId],
  );
  return rows.length > 0 ? manager.findOneByOrFail(Voucher, { id: voucherId }) : null;
}
