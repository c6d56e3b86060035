import { Column, Entity, PrimaryColumn } from 'typeorm';

export const VOUCHER_STATUSES = ['available', 'redeemed', 'expired', 'revoked'] as const;
export type VoucherStatus = (typeof VOUCHER_STATUSES)[number];

/** A user's voucher. Credentials exist only encrypted (display) and as keyed hashes (lookup). */
@Entity({ name: 'vouchers' })
export class Voucher {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'issuance_id', type: 'uuid' })
  issuanceId: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ name: 'template_id', type: 'uuid' })
  templateId: string;

  @Column({ name: 'recipient_user_id', type: 'varchar', length: 128 })
  recipientUserId: string;

  @Column({ name: 'external_issue_id', type: 'varchar', length: 128, nullable: true })
  externalIssueId: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: VoucherStatus;

  @Column({ name: 'valid_from', type: 'timestamptz' })
  validFrom: Date;

  @Column({ name: 'valid_to', type: 'timestamptz' })
  validTo: Date;

  @Column({ name: 'qr_token_hash', type: 'char', length: 64, select: false })
  qrTokenHash: string;

  @Column({ name: 'qr_token_enc', type: 'text', select: false })
  qrTokenEnc: string;

  @Column({ name: 'code_hash', type: 'char', length: 64, select: false })
  codeHash: string;

  @Column({ name: 'code_enc', type: 'text', select: false })
  codeEnc: string;

  @Column({ name: 'issued_at', type: 'timestamptz' })
  issuedAt: Date;

  @Column({ name: 'redeemed_at', type: 'timestamptz', nullable: true })
  redeemedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
