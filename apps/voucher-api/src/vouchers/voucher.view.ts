import type { Voucher, VoucherStatus } from './entities/voucher.entity';

/** The voucher as applications see it: never the QR token nor the code. */
export interface VoucherView {
  id: string;
  template_id: string;
  status: VoucherStatus;
  recipient_user_id: string;
  external_issue_id: string | null;
  valid_from: string;
  valid_to: string;
  issued_at: string;
  redeemed_at: string | null;
}

export function toVoucherView(v: Voucher): VoucherView {
  return {
    id: v.id,
    template_id: v.templateId,
    status: v.status,
    recipient_user_id: v.recipientUserId,
    external_issue_id: v.externalIssueId,
    valid_from: v.validFrom.toISOString(),
    valid_to: v.validTo.toISOString(),
    issued_at: v.issuedAt.toISOString(),
    redeemed_at: v.redeemedAt?.toISOString() ?? null,
  };
}
