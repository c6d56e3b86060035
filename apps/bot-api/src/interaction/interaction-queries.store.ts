import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/platform';
import { EntityManager } from 'typeorm';

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

interface AnswerRow {
  found: boolean;
  written: boolean;
  was_answered: boolean;
  expired: boolean;
}

interface StoredRow<A> {
  id: string;
  answer: A | null;
  answered: boolean;
  expired: boolean;
  query?: string;
  offset?: string;
}

type QueryTable = 'callback_queries' | 'inline_queries';

/**
 * One conditional UPDATE writes the answer: it succeeds only while the query is unanswered and inside
 * its window, so of concurrent answers exactly one wins (the others wait on the row lock, then find it
 * answered). The read beside it tells a refused answer's reason; a query whose snapshot still looked
 * open lost a race to a concurrent answer.
 */
function answerSql(table: QueryTable): string {
  return `WITH target AS (
     SELECT answered_at IS NOT NULL AS was_answered, expires_at < now() AS expired
       FROM ${table} WHERE id = $1 AND bot_id = $2
   ), written AS (
     UPDATE ${table} SET answered_at = now(), answer = $3::jsonb
      WHERE id = $1 AND bot_id = $2 AND answered_at IS NULL AND expires_at >= now()
     RETURNING id
   )
   SELECT EXISTS (SELECT 1 FROM target) AS found, EXISTS (SELECT 1 FROM written) AS written,
          coalesce((SELECT was_answered FROM target), false) AS was_answered,
          coalesce((SELECT expired FROM target), false) AS expired`;
}

function outcomeOf(row: AnswerRow): AnswerOutcome {
  if (!row.found) return 'not_found';
  if (row.written) return 'answered';
  if (row.was_answered || !row.expired) return 'already_answered';
  return 'expired';
}

async function answer(
  manager: EntityManager,
  table: QueryTable,
  id: string,
  botId: string,
  body: object,
): Promise<AnswerOutcome> {
  if (!isUuid(id)) return 'not_found';
  const rows: AnswerRow[] = await manager.query(answerSql(table), [id, botId, JSON.stringify(body)]);
  return outcomeOf(rows[0]);
}

async function readForUser<A>(
  manager: EntityManager,
  table: QueryTable,
  id: string,
  userId: string,
): Promise<StoredRow<A> | null> {
  if (!isUuid(id)) return null;
  const extra = table === 'inline_queries' ? ', query, "offset"' : '';
  const rows: StoredRow<A>[] = await manager.query(
    `SELECT id, answer, answered_at IS NOT NULL AS answered, expires_at < now() AS expired${extra}
       FROM ${table} WHERE id = $1 AND user_id = $2`,
    [id, userId],
  );
  return rows[0] ?? null;
}

function statusOf(row: StoredRow<unknown>): QueryStatus {
  return row.answered ? 'answered' : row.expired ? 'expired' : 'pending';
}

/** The callback queries of button clicks: who clicked which button of which bot message, and the bot's answer. */
@Injectable()
export class CallbackQueriesStore {
  async insert(manager: EntityManager, query: NewCallbackQuery, windowMs: number): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO callback_queries (bot_id, user_id, chat_id, message_id, data, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::double precision / 1000))
       RETURNING id`,
      [query.botId, query.userId, query.chatId, query.messageId, query.data, windowMs],
    );
    return rows[0].id;
  }

  answer(manager: EntityManager, id: string, botId: string, body: object): Promise<AnswerOutcome> {
    return answer(manager, 'callback_queries', id, botId, body);
  }

  /** The query as the user who clicked sees it; null for an unknown id or another user's query. */
  async readForUser<A>(manager: EntityManager, id: string, userId: string): Promise<StoredQuery<A> | null> {
    const row = await readForUser<A>(manager, 'callback_queries', id, userId);
    return row && { id: row.id, status: statusOf(row), answer: row.answer };
  }

  /** Queries older than the retention are dropped, answered or not; returns how many. */
  async purgeOlderThan(manager: EntityManager, retentionHours: number): Promise<number> {
    const result: [unknown[], number] = await manager.query(
      `DELETE FROM callback_queries WHERE created_at < now() - make_interval(hours => $1)`,
      [retentionHours],
    );
    return result[1];
  }
}

/** Inline queries: what a user typed to which bot, and the results the bot answered. */
@Injectable()
export class InlineQueriesStore {
  async insert(manager: EntityManager, query: NewInlineQuery, windowMs: number): Promise<string> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO inline_queries (bot_id, user_id, query, "offset", expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::double precision / 1000))
       RETURNING id`,
      [query.botId, query.userId, query.query, query.offset, windowMs],
    );
    return rows[0].id;
  }

  answer(manager: EntityManager, id: string, botId: string, body: object): Promise<AnswerOutcome> {
    return answer(manager, 'inline_queries', id, botId, body);
  }

  async readForUser<A>(manager: EntityManager, id: string, userId: string): Promise<StoredInlineQuery<A> | null> {
    const row = await readForUser<A>(manager, 'inline_queries', id, userId);
    return row && { id: row.id, status: statusOf(row), answer: row.answer, query: row.query!, offset: row.offset! };
  }

  async purgeOlderThan(manager: EntityManager, retentionHours: number): Promise<number> {
    const result: [unknown[], number] = await manager.query(
      `DELETE FROM inline_queries WHERE created_at < now() - make_interval(hours => $1)`,
      [retentionHours],
    );
    return result[1];
  }
}
