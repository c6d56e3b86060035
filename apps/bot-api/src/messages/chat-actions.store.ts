import { Injectable } from '@nestjs/common';
import { db } from '@app/bot-schema';
import { Database, execute, executeAll, RowOf } from '@app/platform';
import { sql } from 'kysely';

function liveActions(chatId: string, now: Date) {
  return db
    .selectFrom('chat_actions')
    .select(['user_id', 'action', sql<string>`(extract(epoch FROM expires_at) * 1000)::bigint`.as('expires_at_ms')])
    .where('chat_id', '=', chatId)
    .where('expires_at', '>', now)
    .orderBy('user_id');
}

/** A live action as read: its expiry in epoch milliseconds (an int8, so a string). */
export type ChatActionRow = RowOf<ReturnType<typeof liveActions>>;

/** Every statement on chat_actions: the PostgreSQL-only mode's "typing…" labels with their expiry. */
@Injectable()
export class ChatActionsStore {
  constructor(private readonly database: Database) {}

  async put(chatId: string, userId: string, action: string, expiresAt: Date): Promise<void> {
    await execute(
      this.database,
      db
        .insertInto('chat_actions')
        .values({ chat_id: chatId, user_id: userId, action, expires_at: expiresAt })
        .onConflict((conflict) =>
          conflict.columns(['chat_id', 'user_id']).doUpdateSet((eb) => ({
            action: eb.ref('excluded.action'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        ),
    );
  }

  /** The chat's actions that have not expired at `now`. */
  live(chatId: string, now: Date): Promise<ChatActionRow[]> {
    return executeAll(this.database, liveActions(chatId, now));
  }

  async deleteExpired(now: Date): Promise<void> {
    await execute(this.database, db.deleteFrom('chat_actions').where('expires_at', '<=', now));
  }
}
