import type { VoucherStatus } from '../../vouchers/entities/voucher.entity';

/** The holder's own voucher: the one shape that carries the plaintext credentials, for display. */
export interface HolderVoucherView {
  id: string;
  application_id: string;
  application_name: string;
  template_id: string;
  template: {
    name: string;
    type: string;
    issuer_name: string;
    fulfiller_name: string;
    description: string | null;
    cover_file_id: string | null;
  };
  status: VoucherStatus;
  send_id: string | null;
  valid_from: string;
  valid_to: string;
  issued_at: string;
  redeemed_at: string | null;
  /** Only while the voucher can still be redeemed; null otherwise. */
  qr_token: string | null;
  redeem_code: string | null;
}
