import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An effective friend relation between a bot and a user. */
@Entity({ name: 'bot_friends' })
export class BotFriend {
  @PrimaryColumn({ name: 'bot_id', type: 'varchar', length: 24 })
  botId: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 128 })
  userId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
