import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'dead_letter';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'succeeded', 'dead_letter'];
/** Statuses the dispatcher still works on. */
export const OPEN_DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying'];
/**
 * How the current attempt series of a delivery was started: its first series, a redelivery by the
 * bot's developer (one or in bulk), by platform staff (one or by a redrive job), or by the system
 * when the bot's receiver recovered (self-healing dead letters).
 */
export type DeliveryTrigger = 'first_attempt' | 'manual' | 'staff' | 'auto';
export const DELIVERY_TRIGGERS: readonly DeliveryTrigger[] = ['first_attempt', 'manual', 'staff', 'auto'];
/** The triggers of a redelivery, as the statements that restart a series take them. */
export type RedeliveryTrigger = Exclude<DeliveryTrigger, 'first_attempt'>;

/** The terminal code recorded in last_error of a dead letter (spec 7). */
export const WEBHOOK_DELIVER_FAILED = 'WEBHOOK_DELIVER_FAILED';

const bigintNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** One webhook delivery of one Update (outbox row written in the Update's transaction). */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'bot_id', type: 'varchar', length: 24 })
  botId: string;

  @Column({ name: 'update_seq', type: 'bigint', transformer: bigintNumber })
  updateSeq: number;

  @Column({ name: 'update_id', type: 'uuid' })
  updateId: string;

  @Column({ name: 'update_type', type: 'varchar', length: 32 })
  updateType: string;

  /** The Update as delivered (a copy, so the delivery outlives the getUpdates retention). */
  @Column({ type: 'jsonb', select: false })
  payload: Record<string, unknown>;

  @Column({ type: 'varchar', length: 16 })
  status: DeliveryStatus;

  /** Starts at 1; a manual redelivery increments it and restarts the attempt count. */
  @Column({ type: 'integer' })
  series: number;

  /** How the current series was started. */
  @Column({ type: 'varchar', length: 16 })
  trigger: DeliveryTrigger;

  /** Attempts of the current series. */
  @Column({ type: 'integer' })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt: Date;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'succeeded_at', type: 'timestamptz', nullable: true })
  succeededAt: Date | null;

  @Column({ name: 'dead_letter_at', type: 'timestamptz', nullable: true })
  deadLetterAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
