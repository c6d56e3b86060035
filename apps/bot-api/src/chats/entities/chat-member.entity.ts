import { Column, Entity, PrimaryColumn, UpdateDateColumn, CreateDateColumn } from 'typeorm';

export type MemberRank = 'owner' | 'administrator' | 'member';
export type MemberState = 'active' | 'left' | 'kicked' | 'banned';

@Entity({ name: 'chat_members' })
export class ChatMember {
  @PrimaryColumn({ name: 'chat_id', type: 'uuid' })
  chatId: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  rank: MemberRank;

  @Column({ type: 'varchar', length: 16 })
  state: MemberState;

  @Column({ name: 'ban_reason', type: 'varchar', length: 500, nullable: true })
  banReason: string | null;

  @CreateDateColumn({ name: 'joined_at', type: 'timestamptz' })
  joinedAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
