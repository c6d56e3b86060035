import { Injectable } from '@nestjs/common';
import type { ApiError, RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { Database, SqlTarget } from '@app/platform';
import type { AppCaller } from '../applications/app-caller';
import { VoucherErrors } from '../voucher-errors';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { VoucherLookup } from '../vouchers/voucher-lookup';
import { toVoucherView, VoucherViewSource } from '../vouchers/voucher.view';
import { CredentialKey, VouchersStore } from '../vouchers/vouchers.store';
import type { RedeemDto } from './dto/redeem.dto';
import type { ReverseDto } from './dto/reverse.dto';
import { RedeemResult, RedemptionView, ReverseResult, toRedemptionView, toReversalView } from './redemption.view';
import { RedemptionsStore } from './redemptions.store';

@Injectable()
export class RedemptionsService {
  constructor(
    private readonly database: Database,
    private readonly redemptions: RedemptionsStore,
    private readonly vouchers: VouchersStore,
    private readonly lookup: VoucherLookup,
    private readonly factory: VoucherFactory,
  ) {}

  /**
   * One transaction of two statements: ONE that claims the idempotency key, consumes the voucher with a
   * conditional UPDATE and writes the redemption from its RETURNING row, then the stored response.
   * Of concurrent redeems the row lock lets exactly one match `status = 'available'`;
   * the others re-check the committed row, match nothing and get 409.
   */
  async redeem(caller: AppCaller, body: RedeemDto, call: IdempotentCall): Promise<RenderedBody> {
    const applicationId = caller.application.id;
    const key = this.lookup.keyOf(applicationId, body.credential);
    return this.database.transaction(async (manager) => {
      if (!key) {
        await call.begin(manager);
        return this.lookup.miss(caller.tokenId);
      }
      const facts = {
        externalOrderId: body.external_order_id,
        storeId: body.store_id ?? null,
        operatorId: body.operator_id ?? null,
        occurredAt: body.occurred_at ? new Date(body.occurred_at) : new Date(),
      };
      const outcome = await this.redemptions.redeem(manager, applicationId, key, facts, call.claimParameters());
      await call.claimed(manager, outcome.claimHeld, outcome.claimed);
      if (!outcome.redeemed) throw await this.whyNotRedeemed(manager, applicationId, caller.tokenId, key);
      const { redemption, voucher } = outcome.redeemed;
      const result: RedeemResult = { ...toRedemptionView(redemption, null), voucher: toVoucherView(voucher) };
      return call.complete(manager, result);
    });
  }

  /** Only on the failure path: reads the voucher as it is now to say why it could not be redeemed. */
  private async whyNotRedeemed(
    manager: SqlTarget,
    applicationId: string,
    tokenId: string,
    key: CredentialKey,
  ): Promise<ApiError> {
    const current = await this.lookup.findByCredential(manager, applicationId, tokenId, key);
    if (current.status === 'redeemed') return VoucherErrors.error('VOUCHER_ALREADY_REDEEMED');
    return VoucherErrors.error('VOUCHER_NOT_REDEEMABLE', notRedeemableReason(current));
  }

  async get(applicationId: string, redemptionId: string): Promise<RedemptionView> {
    const found = await this.redemptions.find(applicationId, redemptionId);
    if (!found) throw VoucherErrors.notFound('Redemption');
    return toRedemptionView(found.redemption, found.reversal);
  }

  /** The voucher goes back to available, or to expired when its validity has ended meanwhile. */
  async reverse(
    applicationId: string,
    redemptionId: string,
    body: ReverseDto,
    call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.database.transaction(async (manager) => {
      await call.begin(manager);
      const redemption = await this.redemptions.lock(manager, applicationId, redemptionId);
      if (!redemption) throw VoucherErrors.notFound('Redemption');
      if (redemption.status === 'reversed') {
        throw VoucherErrors.error('REDEMPTION_ALREADY_REVERSED', 'The redemption has already been reversed');
      }
      const reversed = await this.redemptions.reverse(
        manager,
        redemption,
        body.reason ?? null,
        body.operator_id ?? null,
      );
      const redeemed = await this.vouchers.lock(manager, redemption.voucherId);
      const back = redeemed.validTo.getTime() > Date.now() ? 'available' : 'expired';
      // Live again means its code must be unique among live vouchers once more; do that before the update.
      if (back === 'available') await this.factory.ensureLiveCodeIsFree(manager, redeemed.id, applicationId);
      await this.vouchers.unredeem(manager, redeemed.id, back);
      const voucher = await this.vouchers.get(manager, redemption.voucherId);
      const result: ReverseResult = {
        ...toReversalView(reversed.reversal),
        redemption: toRedemptionView(reversed.redemption, reversed.reversal),
        voucher: toVoucherView(voucher),
      };
      return call.complete(manager, result);
    });
  }
}

function notRedeemableReason(voucher: VoucherViewSource): string {
  const now = Date.now();
  if (voucher.status === 'revoked') return 'The voucher has been revoked';
  if (voucher.status === 'expired' || voucher.validTo.getTime() <= now) return 'The voucher has expired';
  if (voucher.validFrom.getTime() > now) return 'The voucher is not yet in effect';
  return `The voucher cannot be redeemed in state ${voucher.status}`;
}
