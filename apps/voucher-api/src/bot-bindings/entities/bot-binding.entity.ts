import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Records that a bot belongs to an application; it never lets a runtime call switch applications. */
@Entity({ name: 'bot_bindings' })
export class BotBinding {
  @PrimaryColumn({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @PrimaryColumn({ name: 'bot_id', type: 'char', length: 24 })
  botId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
