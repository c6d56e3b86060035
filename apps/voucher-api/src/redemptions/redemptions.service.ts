import { Injectable } from '@nestjs/common';
import { ApiError, RenderedBody } from '@app/envelope';
import { claimCtes, IdempotentCall } from '@app/idempotency';
import { runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { AppCaller } from '../app-auth/app-caller';
import { Voucher } from '../vouchers/entities/voucher.entity';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { CredentialKey, perCredentialType, VOUCHER_VIEW_COLUMNS, VoucherLookup } from '../vouchers/voucher-lookup';
import { toVoucherView, VoucherViewSource } from '../vouchers/voucher.view';
import type { RedeemDto } from './dto/redeem.dto';
import type { ReverseDto } from './dto/reverse.dto';
import { Redemption, RedemptionStatus } from './entities/redemption.entity';
import { Reversal } from './entities/reversal.entity';
import {
  RedeemResult,
  RedemptionView,
  RedemptionViewSource,
  ReverseResult,
  toRedemptionView,
  toReversalView,
} from './redemption.view';

/** The claim's outcome, and the redeemed voucher with its redemption (all null when nothing was redeemed). */
interface RedeemedRow extends VoucherViewSource {
  claimHeld: boolean;
  claimed: boolean;
  redemptionId: string;
  externalOrderId: string;
  storeId: string | null;
  operatorId: string | null;
  occurredAt: Date;
  redemptionStatus: RedemptionStatus;
  createdAt: Date;
}

/**
 * Claims the idempotency key, consumes the voucher and records its redemption in ONE statement; the
 * voucher is touched only when the key was claimed. No redeemed row back means the key was not
 * claimed, or the voucher was missing or not redeemable, and nothing but the claim was written.
 * $1 application id, $2 credential hash, $3 external order id, $4 store id, $5 operator id,
 * $6 occurred at, $7… the claim's parameters.
 */
const REDEEM = perCredentialType(
  'redemption_redeem',
  (voucherId) => `
  WITH ${claimCtes(7)},
       redeemed AS (
         UPDATE vouchers SET status = 'redeemed', redeemed_at = now(), updated_at = now()
          WHERE id = (${voucherId}) AND status = 'available' AND valid_from <= now() AND valid_to > now()
            AND EXISTS (SELECT 1 FROM idempotency_claim)
         RETURNING ${VOUCHER_VIEW_COLUMNS}),
       redemption AS (
         INSERT INTO redemptions (application_id, voucher_id, external_order_id, store_id, operator_id, occurred_at)
         SELECT $1::uuid, id, $3::varchar, $4::varchar, $5::varchar, $6::timestamptz FROM redeemed
         RETURNING id, external_order_id, store_id, operator_id, occurred_at, status, created_at)
  SELECT idempotency_lock.held AS "claimHeld", EXISTS (SELECT 1 FROM idempotency_claim) AS claimed, done.*
    FROM idempotency_lock
    LEFT JOIN (
      SELECT redeemed.*, redemption.id AS "redemptionId", redemption.external_order_id AS "externalOrderId",
             redemption.store_id AS "storeId", redemption.operator_id AS "operatorId",
             redemption.occurred_at AS "occurredAt", redemption.status AS "redemptionStatus",
             redemption.created_at AS "createdAt"
        FROM redeemed, redemption) done ON true`,
);

@Injectable()
export class RedemptionsService {
  constructor(
    private readonly dataSource: DataSource,
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
    return this.dataSource.transaction(async (manager) => {
      if (!key) {
        await call.begin(manager);
        return this.lookup.miss(caller.tokenId);
      }
      const { rows } = await runNamed<RedeemedRow>(manager, REDEEM[key.type], [
        applicationId,
        key.hash,
        body.external_order_id,
        body.store_id ?? null,
        body.operator_id ?? null,
        body.occurred_at ? new Date(body.occurred_at) : new Date(),
        ...call.claimParameters(),
      ]);
      const row = rows[0];
      await call.claimed(manager, row.claimHeld, row.claimed);
      if (row.id === null) throw await this.whyNotRedeemed(manager, applicationId, caller.tokenId, key);
      const redemption: RedemptionViewSource = {
        id: row.redemptionId,
        voucherId: row.id,
        externalOrderId: row.externalOrderId,
        storeId: row.storeId,
        operatorId: row.operatorId,
        occurredAt: row.occurredAt,
        status: row.redemptionStatus,
        createdAt: row.createdAt,
      };
      const result: RedeemResult = { ...toRedemptionView(redemption, null), voucher: toVoucherView(row) };
      return call.complete(manager, result);
    });
  }

  /** Only on the failure path: reads the voucher as it is now to say why it could not be redeemed. */
  private async whyNotRedeemed(
    manager: EntityManager,
    applicationId: string,
    tokenId: string,
    key: CredentialKey,
  ): Promise<ApiError> {
    const current = await this.lookup.findByCredential(manager, applicationId, tokenId, key);
    if (current.status === 'redeemed') {
      return ApiError.conflict('VOUCHER_ALREADY_REDEEMED', 'The voucher is already redeemed');
    }
    return ApiError.conflict('VOUCHER_NOT_REDEEMABLE', notRedeemableReason(current));
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
      await call.begin(manager);
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

function notRedeemableReason(voucher: VoucherViewSource): string {
  const now = Date.now();
  if (voucher.status === 'revoked') return 'The voucher has been revoked';
  if (voucher.status === 'expired' || voucher.validTo.getTime() <= now) return 'The voucher has expired';
  if (voucher.validFrom.getTime() > now) return 'The voucher is not yet in effect';
  return `The voucher cannot be redeemed in state ${voucher.status}`;
}
