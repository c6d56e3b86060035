import { ApiProperty } from '@nestjs/swagger';
import { type Voucher, VOUCHER_STATUSES, type VoucherStatus } from './entities/voucher.entity';

/** The voucher as applications see it: never the QR token nor the code. */
export class VoucherView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  template_id: string;

  @ApiProperty({ enum: VOUCHER_STATUSES })
  status: VoucherStatus;

  @ApiProperty()
  recipient_user_id: string;

  @ApiProperty({ type: String, nullable: true, description: 'null for vouchers claimed from a send' })
  external_issue_id: string | null;

  @ApiProperty({ format: 'date-time' })
  valid_from: string;

  @ApiProperty({ format: 'date-time' })
  valid_to: string;

  @ApiProperty({ format: 'date-time' })
  issued_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  redeemed_at: string | null;
}

/** What the view reads of a voucher: an entity, or a row selected with VOUCHER_VIEW_COLUMNS. */
export type VoucherViewSource = Pick<
  Voucher,
  | 'id'
  | 'templateId'
  | 'status'
  | 'recipientUserId'
  | 'externalIssueId'
  | 'validFrom'
  | 'validTo'
  | 'issuedAt'
  | 'redeemedAt'
>;

export function toVoucherView(v: VoucherViewSource): VoucherView {
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

export class IssueResult {
  @ApiProperty({ format: 'uuid', description: 'Identifies this issuing action' })
  issuanceId: string;

  @ApiProperty({ type: VoucherView })
  voucher: VoucherView;
}

export class VerifyResult {
  @ApiProperty({ type: VoucherView, description: 'The voucher with its current status' })
  voucher: VoucherView;

  @ApiProperty({ description: 'Whether a redeem right now would pass the state and validity checks' })
  redeemable: boolean;
}
