import { Column, CreateDateColumn, Entity, PrimaryColumn, ValueTransformer } from 'typeorm';

/** update_seq is bigint in PostgreSQL but a plain number on the wire, as Telegram's update_id is. */
const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/**
 * One event for one bot; written in the transaction of the event itself (the Update outbox,
 * update-outbox.ts). Its statements are bot delivery's (updates.store.ts).
 */
@Entity({ name: 'updates' })
export class UpdateRecord {
  @PrimaryColumn({ name: 'update_seq', type: 'bigint', generated: 'increment', transformer: bigintNumber })
  updateSeq: number;

  @Column({ name: 'update_id', type: 'uuid' })
  updateId: string;

  @Column({ name: 'bot_id', type: 'varchar', length: 24 })
  botId: string;

  @Column({ type: 'varchar', length: 32 })
  type: string;

  /** The Update as the bot receives it, without update_seq. */
  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'boolean', default: false })
  acknowledged: boolean;
}
