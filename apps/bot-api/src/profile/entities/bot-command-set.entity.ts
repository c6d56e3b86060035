import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export interface BotCommand {
  command: string;
  description: string;
}

/** The command list of one bot for one (scope, language_code) pair, as Telegram keeps them. */
@Entity({ name: 'bot_commands' })
export class BotCommandSet {
  @PrimaryColumn({ name: 'bot_id', type: 'varchar', length: 24 })
  botId: string;

  /** Canonical key of the scope, e.g. `default` or `chat:<chat_id>`. */
  @PrimaryColumn({ name: 'scope_key', type: 'varchar', length: 200 })
  scopeKey: string;

  /** Empty string for every language. */
  @PrimaryColumn({ name: 'language_code', type: 'varchar', length: 8 })
  languageCode: string;

  @Column({ type: 'jsonb' })
  scope: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  commands: BotCommand[];

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
