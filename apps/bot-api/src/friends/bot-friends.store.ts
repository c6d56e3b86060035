import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** Every statement on bot_friends: the effective friend relations between bots and users. */
@Injectable()
export class BotFriendsStore {
  async exists(manager: EntityManager, botId: string, userId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM bot_friends WHERE bot_id = $1 AND user_id = $2`, [
      botId,
      userId,
    ]);
    return rows.length > 0;
  }

  /** Relations that exist already are left as they are. */
  async add(manager: EntityManager, botId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await manager.query(
      `INSERT INTO bot_friends (bot_id, user_id) SELECT $1, unnest($2::varchar[]) ON CONFLICT DO NOTHING`,
      [botId, userIds],
    );
  }
}
