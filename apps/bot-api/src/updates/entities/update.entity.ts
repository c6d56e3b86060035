import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../database/bigint-number';

/** One event for one bot; written in the transaction of the event itself (outbox). */
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
