import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface ChatActionRow {
  user_id: string;
  action: string;
  expires_at_ms: string;
}

/** Every statement on chat_actions: the PostgreSQL-only mode's "typing…" labels with their expiry. */
@Injectable()
export class ChatActionsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async put(chatId: string, userId: string, action: string, expiresAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO chat_actions (chat_id, user_id, action, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (chat_id, user_id) DO UPDATE SET action = EXCLUDED.action, expires_at = EXCLUDED.expires_at`,
      [chatId, userId, action, expiresAt],
    );
  }

  /** The chat's actions that have not expired at `now`. */
  live(chatId: string, now: Date): Promise<ChatActionRow[]> {
    return this.dataSource.query(
      `SELECT user_id, action, (extract(epoch FROM expires_at) * 1000)::bigint AS expires_at_ms
         FROM chat_actions WHERE chat_id = $1 AND expires_at > $2 ORDER BY user_id`,
      [chatId, now],
    );
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_actions WHERE expires_at <= $1`, [now]);
  }
}
