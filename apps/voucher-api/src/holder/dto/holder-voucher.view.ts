import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { TemplateView } from '../../templates/template.view';
import { VOUCHER_STATUSES, type VoucherStatus } from '../../vouchers/entities/voucher.entity';

/** What the wallet shows of a voucher's template. */
export class HolderVoucherTemplateView extends PickType(TemplateView, [
  'name',
  'type',
  'issuer_name',
  'fulfiller_name',
  'description',
  'cover_file_id',
] as const) {}

/** The holder's own voucher: the one shape that carries the plaintext credentials, for display. */
export class HolderVoucherView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  application_name: string;

  @ApiProperty({ format: 'uuid' })
  template_id: string;

  @ApiProperty({ type: HolderVoucherTemplateView })
  template: HolderVoucherTemplateView;

  @ApiProperty({ enum: VOUCHER_STATUSES, description: 'expired as soon as the validity ends, verified or not' })
  status: VoucherStatus;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The send it was claimed from, if any' })
  send_id: string | null;

  @ApiProperty({ format: 'date-time' })
  valid_from: string;

  @ApiProperty({ format: 'date-time' })
  valid_to: string;

  @ApiProperty({ format: 'date-time' })
  issued_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  redeemed_at: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The QR token to show; only while the voucher can still be redeemed, null otherwise',
  })
  qr_token: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The six-character code; only while the voucher can still be redeemed, null otherwise',
  })
  redeem_code: string | null;
}

export class HolderVoucherPage extends PageOf(HolderVoucherView) {}
