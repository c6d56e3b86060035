import { ApiProperty, PickType } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { TemplateView } from '../../templates/template.view';
import type { VoucherStatus } from '../../vouchers/entities/voucher.entity';
import { VoucherView } from '../../vouchers/voucher.view';

/** What the wallet shows of a voucher's template. */
export class HolderVoucherTemplateView extends PickType(TemplateView, [
  'name',
  'type',
  'issuer_name',
  'fulfiller_name',
  'description',
  'cover_file_id',
] as const) {}

/**
 * The holder's own voucher: the one shape that carries the plaintext credentials, for display. It is
 * the voucher as applications see it (the same fields, declared once in VoucherView) without who holds
 * it and the application's issue number, plus the wallet's own fields.
 */
export class HolderVoucherView extends PickType(VoucherView, [
  'id',
  'template_id',
  'status',
  'valid_from',
  'valid_to',
  'issued_at',
  'redeemed_at',
] as const) {
  // The wallet derives expiry itself, so its status says expired before any verify has marked it.
  @ApiProperty({ description: 'expired as soon as the validity ends, verified or not' })
  override status: VoucherStatus;

  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  application_name: string;

  @ApiProperty({ type: HolderVoucherTemplateView })
  template: HolderVoucherTemplateView;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The send it was claimed from, if any' })
  send_id: string | null;

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
