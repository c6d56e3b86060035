import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { bigintNumber } from '../../database/bigint-number';

export const CHAT_TYPES = ['private', 'group'] as const;
export type ChatType = (typeof CHAT_TYPES)[number];

@Entity({ name: 'chats' })
export class Chat {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 16 })
  type: ChatType;

  @Column({ type: 'varchar', length: 255, nullable: true })
  title: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'photo_url', type: 'varchar', length: 2048, nullable: true })
  photoUrl: string | null;

  @Column({ name: 'pinned_message_id', type: 'bigint', nullable: true, transformer: bigintNumber })
  pinnedMessageId: number | null;

  /** `<userId>|<botUserId>` for private chats, so one pair never gets two chats. */
  @Column({ name: 'private_key', type: 'varchar', length: 300, nullable: true })
  privateKey: string | null;

  @Column({ name: 'created_by', type: 'varchar', length: 128 })
  createdBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
