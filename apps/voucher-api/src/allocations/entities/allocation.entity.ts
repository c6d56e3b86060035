import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** `active` while stock is left to send or a send awaits its claim; `exhausted` once every unit is claimed. */
export const ALLOCATION_STATUSES = ['active', 'exhausted'] as const;
export type AllocationStatus = (typeof ALLOCATION_STATUSES)[number];

/**
 * Template stock handed to a sender's backpack. The database keeps
 * `remaining + sending_count + claimed_count = quantity` and derives `status`, so no code path can drift.
 */
@Entity({ name: 'allocations' })
export class Allocation {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ name: 'template_id', type: 'uuid' })
  templateId: string;

  @Column({ name: 'sender_user_id', type: 'varchar', length: 128 })
  senderUserId: string;

  @Column({ name: 'created_by', type: 'varchar', length: 128 })
  createdBy: string;

  @Column({ type: 'integer' })
  quantity: number;

  @Column({ type: 'integer' })
  remaining: number;

  @Column({ name: 'sending_count', type: 'integer', default: 0 })
  sendingCount: number;

  @Column({ name: 'claimed_count', type: 'integer', default: 0 })
  claimedCount: number;

  @Column({ type: 'varchar', length: 16, insert: false, update: false })
  status: AllocationStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
