import { ApiExtraModels, ApiProperty } from '@nestjs/swagger';
import { nullableObject } from '../api-schema';
import { VoucherView } from '../vouchers/voucher.view';
import type { Redemption, RedemptionStatus } from './entities/redemption.entity';
import type { Reversal } from './entities/reversal.entity';

export class ReversalView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  redemption_id: string;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;

  @ApiProperty({ type: String, nullable: true })
  operator_id: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

@ApiExtraModels(ReversalView)
export class RedemptionView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  voucher_id: string;

  @ApiProperty()
  external_order_id: string;

  @ApiProperty({ type: String, nullable: true })
  store_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  operator_id: string | null;

  @ApiProperty({ format: 'date-time', description: 'Business time of the redemption' })
  occurred_at: string;

  @ApiProperty({ enum: ['succeeded', 'reversed'] })
  status: RedemptionStatus;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty(nullableObject(ReversalView, 'The reversal of this redemption; null while it stands'))
  reversal: ReversalView | null;
}

export class RedeemResult extends RedemptionView {
  @ApiProperty({ type: VoucherView, description: 'The voucher, now redeemed' })
  voucher: VoucherView;
}

export class ReverseResult extends ReversalView {
  @ApiProperty({ type: RedemptionView, description: 'The redemption, now reversed' })
  redemption: RedemptionView;

  @ApiProperty({ type: VoucherView, description: 'The voucher, available again or expired' })
  voucher: VoucherView;
}

/** What the view reads of a reversal: an entity, or a row returned under these names. */
export type ReversalViewSource = Pick<Reversal, 'id' | 'redemptionId' | 'reason' | 'operatorId' | 'createdAt'>;

export function toReversalView(r: ReversalViewSource): ReversalView {
  return {
    id: r.id,
    redemption_id: r.redemptionId,
    reason: r.reason,
    operator_id: r.operatorId,
    created_at: r.createdAt.toISOString(),
  };
}

/** What the view reads of a redemption: an entity, or a row returned under these names. */
export type RedemptionViewSource = Pick<
  Redemption,
  'id' | 'voucherId' | 'externalOrderId' | 'storeId' | 'operatorId' | 'occurredAt' | 'status' | 'createdAt'
>;

export function toRedemptionView(r: RedemptionViewSource, reversal: ReversalViewSource | null): RedemptionView {
  return {
    id: r.id,
    voucher_id: r.voucherId,
    external_order_id: r.externalOrderId,
    store_id: r.storeId,
    operator_id: r.operatorId,
    occurred_at: r.occurredAt.toISOString(),
    status: r.status,
    created_at: r.createdAt.toISOString(),
    reversal: reversal ? toReversalView(reversal) : null,
  };
}
