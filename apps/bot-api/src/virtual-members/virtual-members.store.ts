import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export interface VirtualMemberRow {
  user_id: string;
  chat_id: string;
  bot_id: string;
  created_at: Date;
}

/** Which bot created which virtual member in which group: the bot speaks as its own virtual members only. */
@Injectable()
export class VirtualMembersStore {
  async insert(manager: EntityManager, userId: string, chatId: string, botId: string): Promise<VirtualMemberRow> {
    const rows: VirtualMemberRow[] = await manager.query(
      `INSERT INTO virtual_members (user_id, chat_id, bot_id) VALUES ($1, $2, $3)
       RETURNING user_id, chat_id, bot_id, created_at`,
      [userId, chatId, botId],
    );
    return rows[0];
  }

  /** The bot's virtual member in this chat; null for any other id (another bot's, another chat's, a person's). */
  async find(manager: EntityManager, userId: string, chatId: string, botId: string): Promise<VirtualMemberRow | null> {
    const rows: VirtualMemberRow[] = await manager.query(
      `SELECT user_id, chat_id, bot_id, created_at FROM virtual_members
        WHERE user_id = $1 AND chat_id = $2 AND bot_id = $3`,
      [userId, chatId, botId],
    );
    return rows[0] ?? null;
  }

  /** The bot's virtual members of the chat, oldest first, one page; with how many there are. */
  async page(
    manager: EntityManager,
    chatId: string,
    botId: string,
    offset: number,
    limit: number,
  ): Promise<[VirtualMemberRow[], number]> {
    const rows: VirtualMemberRow[] = await manager.query(
      `SELECT user_id, chat_id, bot_id, created_at FROM virtual_members
        WHERE chat_id = $1 AND bot_id = $2
        ORDER BY created_at, user_id OFFSET $3 LIMIT $4`,
      [chatId, botId, offset, limit],
    );
    const counted: Array<{ n: string }> = await manager.query(
      `SELECT count(*) AS n FROM virtual_members WHERE chat_id = $1 AND bot_id = $2`,
      [chatId, botId],
    );
    return [rows, Number(counted[0].n)];
  }
}
