import { Injectable } from '@nestjs/common';
import { db } from '@app/bot-schema';
import { execute, executeFirst, isUuid, RowOf, SqlTarget } from '@app/platform';
import { sql, type SqlBool } from 'kysely';

/** Where a query stands for the user who made it. */
export type QueryStatus = 'pending' | 'answered' | 'expired';

/** The outcome of an answer attempt, decided by the one statement that writes it. */
export type AnswerOutcome = 'answered' | 'not_found' | 'already_answered' | 'expired';

export interface NewCallbackQuery {
  botId: string;
  userId: string;
  chatId: string;
  messageId: number;
  data: string;
}

export interface NewInlineQuery {
  botId: string;
  userId: string;
  query: string;
  offset: string;
}

export interface StoredQuery<A> {
  id: string;
  status: QueryStatus;
  answer: A | null;
}

export interface StoredInlineQuery<A> extends StoredQuery<A> {
  query: string;
  offset: string;
}

type QueryTable = 'callback_queries' | 'inline_queries';

/**
 * One conditional UPDATE writes the answer: it succeeds only while the query is unanswered and inside
 * its window, so of concurrent answers exactly one wins (the others wait on the row lock, then find it
 * answered). The read beside it tells a refused answer's reason; a query whose snapshot still looked
 * open lost a race to a concurrent answer.
 */
function answerStatement(table: QueryTable, id: string, botId: string, body: object) {
  return db
    .with('target', (db) =>
      db
        .selectFrom(table as 'callback_queries')
        .select((eb) => [
          eb('answered_at', 'is not', null).as('was_answered'),
          eb('expires_at', '<', sql<Date>`now()`).as('expired'),
        ])
        .where('id', '=', id)
        .where('bot_id', '=', botId),
    )
    .with('written', (db) =>
      db
        .updateTable(table as 'callback_queries')
        .set({ answered_at: sql<Date>`now()`, answer: sql<string>`${JSON.stringify(body)}::jsonb` })
        .where('id', '=', id)
        .where('bot_id', '=', botId)
        .where('answered_at', 'is', null)
        .where('expires_at', '>=', sql<Date>`now()`)
        .returning('id'),
    )
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('target').select(sql.lit(1).as('one'))).as('found'),
      eb.exists(eb.selectFrom('written').select(sql.lit(1).as('one'))).as('written'),
      eb.fn.coalesce(eb.selectFrom('target').select('was_answered'), sql.lit(false)).as('was_answered'),
      eb.fn.coalesce(eb.selectFrom('target').select('expired'), sql.lit(false)).as('expired'),
    ]);
}

type AnswerRow = RowOf<ReturnType<typeof answerStatement>>;

function outcomeOf(row: AnswerRow): AnswerOutcome {
  if (!row.found) return 'not_found';
  if (row.written) return 'answered';
  if (row.was_answered || !row.expired) return 'already_answered';
  return 'expired';
}

async function answer(
  on: SqlTarget,
  table: QueryTable,
  id: string,
  botId: string,
  body: object,
): Promise<AnswerOutcome> {
  if (!isUuid(id)) return 'not_found';
  const row = await executeFirst(on, answerStatement(table, id, botId, body));
  return outcomeOf(row!);
}

function statusOf(row: { answered: SqlBool; expired: SqlBool }): QueryStatus {
  return row.answered ? 'answered' : row.expired ? 'expired' : 'pending';
}

/** Queries of `table` older than the retention are dropped, answered or not; returns how many. */
async function purgeOlderThan(on: SqlTarget, table: QueryTable, retentionHours: number): Promise<number> {
  const result = await execute(
    on,
    db
      .deleteFrom(table as 'callback_queries')
      .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${retentionHours})`),
  );
  return result.rowCount ?? 0;
}

/** `now()` plus a window given in milliseconds. */
function expiresAfter(windowMs: number) {
  return sql<Date>`now() + make_interval(secs => ${windowMs}::double precision / 1000)`;
}

/** The callback queries of button clicks: who clicked which button of which bot message, and the bot's answer. */
@Injectable()
export class CallbackQueriesStore {
  async insert(on: SqlTarget, query: NewCallbackQuery, windowMs: number): Promise<string> {
    const row = await executeFirst(
      on,
      db
        .insertInto('callback_queries')
        .values({
          bot_id: query.botId,
          user_id: query.userId,
          chat_id: query.chatId,
          message_id: query.messageId,
          data: query.data,
          expires_at: expiresAfter(windowMs),
        })
        .returning('id'),
    );
    return row!.id;
  }

  answer(on: SqlTarget, id: string, botId: string, body: object): Promise<AnswerOutcome> {
    return answer(on, 'callback_queries', id, botId, body);
  }

  /** The query as the user who clicked sees it; null for an unknown id or another user's query. */
  async readForUser<A>(on: SqlTarget, id: string, userId: string): Promise<StoredQuery<A> | null> {
    if (!isUuid(id)) return null;
    const row = await executeFirst(
      on,
      db
        .selectFrom('callback_queries')
        .select((eb) => [
          'id',
          'answer',
          eb('answered_at', 'is not', null).as('answered'),
          eb('expires_at', '<', sql<Date>`now()`).as('expired'),
        ])
        .where('id', '=', id)
        .where('user_id', '=', userId),
    );
    return row ? { id: row.id, status: statusOf(row), answer: row.answer as A | null } : null;
  }

  /** Queries older than the retention are dropped, answered or not; returns how many. */
  purgeOlderThan(on: SqlTarget, retentionHours: number): Promise<number> {
    return purgeOlderThan(on, 'callback_queries', retentionHours);
  }
}

/** Inline queries: what a user typed to which bot, and the results the bot answered. */
@Injectable()
export class InlineQueriesStore {
  async insert(on: SqlTarget, query: NewInlineQuery, windowMs: number): Promise<string> {
    const row = await executeFirst(
      on,
      db
        .insertInto('inline_queries')
        .values({
          bot_id: query.botId,
          user_id: query.userId,
          query: query.query,
          offset: query.offset,
          expires_at: expiresAfter(windowMs),
        })
        .returning('id'),
    );
    return row!.id;
  }

  answer(on: SqlTarget, id: string, botId: string, body: object): Promise<AnswerOutcome> {
    return answer(on, 'inline_queries', id, botId, body);
  }

  async readForUser<A>(on: SqlTarget, id: string, userId: string): Promise<StoredInlineQuery<A> | null> {
    if (!isUuid(id)) return null;
    const row = await executeFirst(
      on,
      db
        .selectFrom('inline_queries')
        .select((eb) => [
          'id',
          'answer',
          eb('answered_at', 'is not', null).as('answered'),
          eb('expires_at', '<', sql<Date>`now()`).as('expired'),
          'query',
          'offset',
        ])
        .where('id', '=', id)
        .where('user_id', '=', userId),
    );
    return row
      ? { id: row.id, status: statusOf(row), answer: row.answer as A | null, query: row.query, offset: row.offset }
      : null;
  }

  purgeOlderThan(on: SqlTarget, retentionHours: number): Promise<number> {
    return purgeOlderThan(on, 'inline_queries', retentionHours);
  }
}
