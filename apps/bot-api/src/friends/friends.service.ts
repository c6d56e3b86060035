import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Bot } from '../bots/entities/bot.entity';

@Injectable()
export class FriendsService {
  /** Whether the user may open a private chat with the bot: an effective relation, or a bot that accepts everyone. */
  async canChat(manager: EntityManager, bot: Pick<Bot, 'id' | 'friendRequestMode'>, userId: string): Promise<boolean> {
    if (bot.friendRequestMode === 'auto_accept') return true;
    const rows: unknown[] = await manager.query(`SELECT 1 FROM bot_friends WHERE bot_id = $1 AND user_id = $2`, [
      bot.id,
      userId,
    ]);
    return rows.length > 0;
  }
}
