import { Injectable } from '@nestjs/common';
import { execute, executeFirst, SqlTarget } from '@app/platform';
import { db } from '@app/bot-schema';
import { sql } from 'kysely';

/** Every statement on bot_friends: the effective friend relations between bots and users. */
@Injectable()
export class BotFriendsStore {
  async exists(on: SqlTarget, botId: string, userId: string): Promise<boolean> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('bot_friends')
        .select(sql.lit(1).as('found'))
        .where('bot_id', '=', botId)
        .where('user_id', '=', userId),
    );
    return row !== undefined;
  }

  /** Relations that exist already are left as they are. */
  async add(on: SqlTarget, botId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await execute(
      on,
      db
        .insertInto('bot_friends')
        .columns(['bot_id', 'user_id'])
        .expression(
          db.selectNoFrom([
            sql<string>`${botId}`.as('bot_id'),
            sql<string>`unnest(${userIds}::varchar[])`.as('user_id'),
          ]),
        )
        .onConflict((oc) => oc.doNothing()),
    );
  }
}
