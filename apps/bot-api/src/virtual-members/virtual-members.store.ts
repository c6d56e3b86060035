import { Injectable } from '@nestjs/common';
import { db, type VirtualMembers } from '@app/bot-schema';
import { executeAll, executeFirst, SqlTarget } from '@app/platform';
import type { Selectable } from 'kysely';

export type VirtualMemberRow = Selectable<VirtualMembers>;

const COLUMNS = ['user_id', 'chat_id', 'bot_id', 'created_at'] as const;

/** Which bot created which virtual member in which group: the bot speaks as its own virtual members only. */
@Injectable()
export class VirtualMembersStore {
  async insert(on: SqlTarget, userId: string, chatId: string, botId: string): Promise<VirtualMemberRow> {
    const row = await executeFirst(
      on,
      db.insertInto('virtual_members').values({ user_id: userId, chat_id: chatId, bot_id: botId }).returning(COLUMNS),
    );
    return row!;
  }

  /** The bot's virtual member in this chat; null for any other id (another bot's, another chat's, a person's). */
  async find(on: SqlTarget, userId: string, chatId: string, botId: string): Promise<VirtualMemberRow | null> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('virtual_members')
        .select(COLUMNS)
        .where('user_id', '=', userId)
        .where('chat_id', '=', chatId)
        .where('bot_id', '=', botId),
    );
    return row ?? null;
  }

  /** The bot's virtual members of the chat, oldest first, one page; with how many there are. */
  async page(
    on: SqlTarget,
    chatId: string,
    botId: string,
    offset: number,
    limit: number,
  ): Promise<[VirtualMemberRow[], number]> {
    const ofTheBot = db.selectFrom('virtual_members').where('chat_id', '=', chatId).where('bot_id', '=', botId);
    const rows = await executeAll(
      on,
      ofTheBot.select(COLUMNS).orderBy('created_at').orderBy('user_id').offset(offset).limit(limit),
    );
    const counted = await executeFirst(
      on,
      ofTheBot.select((eb) => eb.fn.countAll<string>().as('n')),
    );
    return [rows, Number(counted!.n)];
  }
}
