import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import { namedOnFirstUse } from './named-on-first-use';
import { insertDeliveriesSql } from './webhook-deliveries.store';

/**
 * CTEs writing the Updates given as four parallel arrays from parameter `first` on (update ids, bot
 * ids, types, payloads) and the deliveries of those whose bot is in webhook mode, ending in
 * `written_updates` and `delivered`. With `gate`, nothing is written unless that CTE has a row.
 */
export function updatesWriteSql(first: number, gate?: string): string {
  const [ids, bots, types, payloads] = [first, first + 1, first + 2, first + 3].map((n) => `$${n}`);
  return `update_input AS (
     SELECT * FROM unnest(${ids}::uuid[], ${bots}::varchar[], ${types}::varchar[], ${payloads}::jsonb[])
         AS t(update_id, bot_id, type, payload)
      ${gate ? `WHERE EXISTS (SELECT 1 FROM ${gate})` : ''}
   ), written_updates AS (
     INSERT INTO updates (update_id, bot_id, type, payload)
     SELECT update_id, bot_id, type, payload FROM update_input
     ON CONFLICT (update_id) DO NOTHING
     RETURNING update_seq, update_id, bot_id, type, payload
   ), delivered AS (
     ${insertDeliveriesSql('written_updates')}
   )`;
}

/** Result columns of `updatesWriteSql`, selected `FROM written_updates w LEFT JOIN delivered d`. */
export const WRITTEN_UPDATE_COLUMNS = `w.update_seq, w.update_id, w.bot_id, w.type, d.id AS delivery_id`;

/**
 * The one way an Update is confirmed, however it reached the bot: getUpdates with an offset,
 * drop_pending_updates, or a webhook delivery that succeeded (spliced into the statement that records
 * attempts). A confirmed Update is never handed out again, neither by getUpdates nor to a webhook set
 * later. `where` filters `updates u`; `from` names what it joins.
 */
export function acknowledgeUpdatesSql(where: string, from?: string): string {
  return `UPDATE updates u SET acknowledged = true${from ? ` FROM ${from}` : ''}
    WHERE ${where} AND NOT u.acknowledged`;
}

const WRITE_UPDATES = namedOnFirstUse(
  'bot_api_updates_write',
  () => `WITH ${updatesWriteSql(1)}
   SELECT ${WRITTEN_UPDATE_COLUMNS} FROM written_updates w LEFT JOIN delivered d ON d.update_id = w.update_id`,
);

/** Walks updates_pending (bot_id, update_seq) WHERE NOT acknowledged: the bot's own backlog only. */
const PENDING_UPDATES = namedStatement(
  'bot_api_updates_pending',
  `SELECT update_seq, payload FROM updates
    WHERE bot_id = $1 AND NOT acknowledged AND update_seq >= $2
      AND created_at > now() - make_interval(hours => $3)
    ORDER BY update_seq
    LIMIT $4`,
);

/** Walks updates_pending (bot_id, update_seq) WHERE NOT acknowledged. */
const ACKNOWLEDGE_BELOW = namedStatement(
  'bot_api_updates_acknowledge_below',
  acknowledgeUpdatesSql('u.bot_id = $1 AND u.update_seq < $2'),
);

const ACKNOWLEDGE_ALL = acknowledgeUpdatesSql('u.bot_id = $1');

/** Keeps the newest `keep` unconfirmed Updates of the bot and confirms every older one. */
const ACKNOWLEDGE_ALL_BUT_LAST = namedStatement(
  'bot_api_updates_acknowledge_all_but_last',
  acknowledgeUpdatesSql(
    `u.bot_id = $1 AND u.update_seq < (
       SELECT coalesce(min(kept.update_seq), 0) FROM (
         SELECT update_seq FROM updates WHERE bot_id = $1 AND NOT acknowledged ORDER BY update_seq DESC LIMIT $2
       ) kept)`,
  ),
);

/** What getWebhookInfo counts for a bot in polling mode: its Updates not confirmed within the retention. */
export const COUNT_WAITING_UPDATES = `SELECT count(*) FROM updates
    WHERE bot_id = $1 AND NOT acknowledged AND created_at > now() - make_interval(hours => $2)`;

const PURGE_OLDER_THAN = `DELETE FROM updates WHERE created_at < now() - make_interval(hours => $1)`;

/** The Updates of one event, as the four array parameters of `updatesWriteSql`. */
export type UpdateColumns = [string[], string[], string[], string[]];

export interface WrittenUpdateRow {
  update_seq: string;
  update_id: string;
  bot_id: string;
  type: string;
  delivery_id: string | null;
}

/**
 * The payload was written (by bot-api's UpdatesService) as the Update without its update_seq; the
 * reader names the shape it documents.
 */
export interface PendingUpdateRow<Payload> {
  update_seq: string;
  payload: Payload;
}

/**
 * Every statement that writes `updates`: the Update outbox bot-api writes in each event's transaction
 * and bots read with getUpdates, and the confirmation of Updates, which bot-dispatcher runs too when a
 * webhook delivery succeeds.
 */
@Injectable()
export class UpdatesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the Updates and their deliveries in one statement, in the manager's transaction. */
  async write(manager: EntityManager, columns: UpdateColumns): Promise<WrittenUpdateRow[]> {
    const { rows } = await runNamed<WrittenUpdateRow>(manager, WRITE_UPDATES, columns);
    return rows;
  }

  /** Unconfirmed Updates of the bot from `offset` on, within the retention, oldest first. */
  async pending<Payload>(
    botId: string,
    offset: number,
    retentionHours: number,
    limit: number,
  ): Promise<Array<PendingUpdateRow<Payload>>> {
    const { rows } = await runNamed<PendingUpdateRow<Payload>>(this.dataSource, PENDING_UPDATES, [
      botId,
      offset,
      retentionHours,
      limit,
    ]);
    return rows;
  }

  /** getUpdates' offset: every Update of the bot below it is confirmed. */
  async acknowledgeBelow(botId: string, offset: number): Promise<void> {
    await runNamed(this.dataSource, ACKNOWLEDGE_BELOW, [botId, offset]);
  }

  /** Telegram's negative getUpdates offset: only the last `keep` pending Updates stay; all earlier are forgotten. */
  async acknowledgeAllButLast(botId: string, keep: number): Promise<void> {
    await runNamed(this.dataSource, ACKNOWLEDGE_ALL_BUT_LAST, [botId, keep]);
  }

  /** drop_pending_updates: every Update the bot has not confirmed yet is dropped, in the manager's transaction. */
  async acknowledgeAll(manager: EntityManager, botId: string): Promise<void> {
    await manager.query(ACKNOWLEDGE_ALL, [botId]);
  }

  /** Updates older than the retention are dropped, confirmed or not; returns how many. */
  async purgeOlderThan(retentionHours: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(PURGE_OLDER_THAN, [retentionHours]);
    return result[1];
  }
}
