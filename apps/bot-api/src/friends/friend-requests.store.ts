import { Injectable } from '@nestjs/common';
import { execute, executeAll, executeFirst, type PageWindow, RowOf, SqlTarget } from '@app/platform';
import { db } from '@app/bot-schema';
import { sql } from 'kysely';
import type { FriendRequestStatus } from './entities/friend-request.entity';

/** The columns of a request, named as its view reads them. */
const FRIEND_REQUEST = [
  'id',
  'bot_id as botId',
  'user_id as userId',
  'message',
  'source',
  'status',
  'created_at as createdAt',
  'answered_at as answeredAt',
] as const;

function selectRequests() {
  return db.selectFrom('friend_requests').select(FRIEND_REQUEST);
}

/** A user's request to befriend a bot, and its answer. */
export type FriendRequest = RowOf<ReturnType<typeof selectRequests>>;

export type NewFriendRequest = Pick<
  FriendRequest,
  'id' | 'botId' | 'userId' | 'message' | 'source' | 'status' | 'answeredAt'
>;

/** Every statement on friend_requests: users' requests to befriend a bot and their answers. */
@Injectable()
export class FriendRequestsStore {
  /** Answers every request of the bot still waiting; the users whose request it answered. */
  async settlePending(on: SqlTarget, botId: string, status: FriendRequestStatus): Promise<string[]> {
    const settled = await executeAll(
      on,
      db
        .updateTable('friend_requests')
        .set({ status, answered_at: sql`now()` })
        .where('bot_id', '=', botId)
        .where('status', '=', sql.lit('pending'))
        .returning('user_id'),
    );
    return settled.map((row) => row.user_id);
  }

  /** One page of the bot's waiting requests, oldest first, and how many wait in all. */
  async pendingPage(on: SqlTarget, botId: string, window: PageWindow): Promise<[FriendRequest[], number]> {
    const page = await executeAll(
      on,
      selectRequests()
        .where('bot_id', '=', botId)
        .where('status', '=', sql.lit('pending'))
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(window.pageSize)
        .offset(window.offset),
    );
    const counted = await executeFirst(
      on,
      db
        .selectFrom('friend_requests')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .where('bot_id', '=', botId)
        .where('status', '=', sql.lit('pending')),
    );
    return [page, Number(counted!.total)];
  }

  /** The bot's request, locked until the transaction ends so one answer wins; null when it has none by that id. */
  async lockOfBot(on: SqlTarget, botId: string, requestId: string): Promise<FriendRequest | null> {
    const request = await executeFirst(
      on,
      selectRequests().where('id', '=', requestId).where('bot_id', '=', botId).forUpdate(),
    );
    return request ?? null;
  }

  async saveAnswer(on: SqlTarget, request: Pick<FriendRequest, 'id' | 'status' | 'answeredAt'>): Promise<void> {
    await execute(
      on,
      db
        .updateTable('friend_requests')
        .set({ status: request.status, answered_at: request.answeredAt })
        .where('id', '=', request.id),
    );
  }

  /** The new request as stored, with its creation time. */
  async insert(on: SqlTarget, request: NewFriendRequest): Promise<FriendRequest> {
    const stored = await executeFirst(
      on,
      db
        .insertInto('friend_requests')
        .values({
          id: request.id,
          bot_id: request.botId,
          user_id: request.userId,
          message: request.message,
          source: request.source,
          status: request.status,
          answered_at: request.answeredAt,
        })
        .returning(FRIEND_REQUEST),
    );
    return stored!;
  }
}
