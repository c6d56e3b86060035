import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type RedemptionStatus = 'succeeded' | 'reversed';

@Entity({ name: 'redemptions' })
export class Redemption {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ name: 'voucher_id', type: 'uuid' })
  voucherId: string;

  @Column({ name: 'external_order_id', type: 'varchar', length: 128 })
  externalOrderId: string;

  @Column({ name: 'store_id', type: 'varchar', length: 128, nullable: true })
  storeId: string | null;

  @Column({ name: 'operator_id', type: 'varchar', length: 128, nullable: true })
  operatorId: string | null;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @Column({ type: 'varchar', length: 16, default: 'succeeded' })
  status: RedemptionStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
