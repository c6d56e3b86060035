import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'chat_join_requests' })
export class ChatJoinRequest {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  status: 'pending' | 'approved' | 'declined';

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
