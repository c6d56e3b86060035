import type { Redemption, RedemptionStatus } from './entities/redemption.entity';
import type { Reversal } from './entities/reversal.entity';

export interface ReversalView {
  id: string;
  redemption_id: string;
  reason: string | null;
  operator_id: string | null;
  created_at: string;
}

export interface RedemptionView {
  id: string;
  voucher_id: string;
  external_order_id: string;
  store_id: string | null;
  operator_id: string | null;
  occurred_at: string;
  status: RedemptionStatus;
  created_at: string;
  /** The reversal of this redemption, or null while it stands. */
  reversal: ReversalView | null;
}

export function toReversalView(r: Reversal): ReversalView {
  return {
    id: r.id,
    redemption_id: r.redemptionId,
    reason: r.reason,
    operator_id: r.operatorId,
    created_at: r.createdAt.toISOString(),
  };
}

export function toRedemptionView(r: Redemption, reversal: Reversal | null): RedemptionView {
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
