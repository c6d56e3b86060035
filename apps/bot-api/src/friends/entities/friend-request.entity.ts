import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type FriendRequestStatus = 'pending' | 'accepted' | 'rejected';

@Entity({ name: 'friend_requests' })
export class FriendRequest {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'bot_id', type: 'varchar', length: 24 })
  botId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  message: string | null;

  @Column({ type: 'varchar', length: 32 })
  source: string;

  @Column({ type: 'varchar', length: 16 })
  status: FriendRequestStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'answered_at', type: 'timestamptz', nullable: true })
  answeredAt: Date | null;
}
