import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const SEND_STATUSES = ['sending', 'claimed', 'cancelled'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/** One unit of an allocation on its way from the sender to a recipient; claimed at most once. */
@Entity({ name: 'sends' })
export class Send {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'allocation_id', type: 'uuid' })
  allocationId: string;

  @Column({ name: 'sender_user_id', type: 'varchar', length: 128 })
  senderUserId: string;

  @Column({ name: 'recipient_user_id', type: 'varchar', length: 128 })
  recipientUserId: string;

  @Column({ type: 'varchar', length: 16, default: 'sending' })
  status: SendStatus;

  @Column({ name: 'voucher_id', type: 'uuid', nullable: true })
  voucherId: string | null;

  @Column({ name: 'claimed_at', type: 'timestamptz', nullable: true })
  claimedAt: Date | null;

  @Column({ name: 'cancelled_at', type: 'timestamptz', nullable: true })
  cancelledAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
