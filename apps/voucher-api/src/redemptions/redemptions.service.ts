import { Injectable } from '@nestjs/common';
import { ApiError, RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { DataSource } from 'typeorm';
import type { AppCaller } from '../app-auth/app-caller';
import { Voucher } from '../vouchers/entities/voucher.entity';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { VoucherLookup } from '../vouchers/voucher-lookup';
import { toVoucherView } from '../vouchers/voucher.view';
import type { RedeemDto } from './dto/redeem.dto';
import type { ReverseDto } from './dto/reverse.dto';
import { Redemption } from './entities/redemption.entity';
import { Reversal } from './entities/reversal.entity';
import { RedeemResult, RedemptionView, ReverseResult, toRedemptionView, toReversalView } from './redemption.view';

@Injectable()
export class RedemptionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lookup: VoucherLookup,
    private readonly factory: VoucherFactory,
  ) {}

  /**
   * The voucher is consumed by ONE conditional UPDATE: of concurrent redeems the row lock lets exactly
   * one match `status = 'available'`; the others re-check the committed row, match nothing and get 409.
   */
  async redeem(caller: AppCaller, body: RedeemDto, call: IdempotentCall): Promise<RenderedBody> {
    const applicationId = caller.application.id;
    return this.dataSource.transaction(async (manager) => {
      const found = await this.lookup.findByCredential(manager, applicationId, caller.tokenId, body.credential);
      const [, redeemed]: [unknown, number] = await manager.query(
        `UPDATE vouchers SET status = 'redeemed', redeemed_at = now(), updated_at = now()
          WHERE id = $1 AND application_id = $2 AND status = 'available' AND valid_from <= now() AND valid_to > now()`,
        [found.id, applicationId],
      );
      if (redeemed !== 1) {
        const current = await manager.findOneByOrFail(Voucher, { id: found.id });
        if (current.status === 'redeemed') {
          throw ApiError.conflict('VOUCHER_ALREADY_REDEEMED', 'The voucher is already redeemed');
        }
        throw ApiError.conflict('VOUCHER_NOT_REDEEMABLE', notRedeemableReason(current));
      }
      const redemption = await manager.save(
        manager.create(Redemption, {
          applicationId,
          voucherId: found.id,
          externalOrderId: body.external_order_id,
          storeId: body.store_id ?? null,
          operatorId: body.operator_id ?? null,
          occurredAt: body.occurred_at ? new Date(body.occurred_at) : new Date(),
          status: 'succeeded',
        }),
      );
      const voucher = await manager.findOneByOrFail(Voucher, { id: found.id });
      const result: RedeemResult = { ...toRedemptionView(redemption, null), voucher: toVoucherView(voucher) };
      return call.complete(manager, result);
    });
  }

  async get(applicationId: string, redemptionId: string): Promise<RedemptionView> {
    const redemption = await this.dataSource.manager.findOneBy(Redemption, { id: redemptionId, applicationId });
    if (!redemption) throw ApiError.notFound('Redemption');
    const reversal = await this.dataSource.manager.findOneBy(Reversal, { redemptionId });
    return toRedemptionView(redemption, reversal);
  }

  /** The voucher goes back to available, or to expired when its validity has ended meanwhile. */
  async reverse(
    applicationId: string,
    redemptionId: string,
    body: ReverseDto,
    call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.dataSource.transaction(async (manager) => {
      const redemption = await manager.findOne(Redemption, {
        where: { id: redemptionId, applicationId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!redemption) throw ApiError.notFound('Redemption');
      if (redemption.status === 'reversed') {
        throw ApiError.conflict('REDEMPTION_ALREADY_REVERSED', 'The redemption has already been reversed');
      }
      redemption.status = 'reversed';
      await manager.save(redemption);
      const reversal = await manager.save(
        manager.create(Reversal, {
          applicationId,
          redemptionId,
          reason: body.reason ?? null,
          operatorId: body.operator_id ?? null,
        }),
      );
      const redeemed = await manager.findOneOrFail(Voucher, {
        where: { id: redemption.voucherId },
        lock: { mode: 'pessimistic_write' },
      });
      const back = redeemed.validTo.getTime() > Date.now() ? 'available' : 'expired';
      // Live again means its code must be unique among live vouchers once more; do that before the update.
      if (back === 'available') await this.factory.ensureLiveCodeIsFree(manager, redeemed.id, applicationId);
      await manager.query(
        `UPDATE vouchers SET status = $2, redeemed_at = NULL, updated_at = now() WHERE id = $1 AND status = 'redeemed'`,
        [redeemed.id, back],
      );
      const voucher = await manager.findOneByOrFail(Voucher, { id: redemption.voucherId });
      const result: ReverseResult = {
        ...toReversalView(reversal),
        redemption: toRedemptionView(redemption, reversal),
        voucher: toVoucherView(voucher),
      };
      return call.complete(manager, result);
    });
  }
}

function notRedeemableReason(voucher: Voucher): string {
  const now = Date.now();
  if (voucher.status === 'revoked') return 'The voucher has been revoked';
  if (voucher.status === 'expired' || voucher.validTo.getTime() <= now) return 'The voucher has expired';
  if (voucher.validFrom.getTime() > now) return 'The voucher is not yet in effect';
  return `The voucher cannot be redeemed in state ${voucher.status}`;
}
