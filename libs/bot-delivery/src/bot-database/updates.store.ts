import { namedStatement, runNamed, runStatement, SqlTarget } from '@app/platform';
import { DataSource } from 'typeorm';
import type { Placeholders } from './composed-statement';

/** The Updates of one or more events as parallel arrays, one element per Update. */
export interface UpdateColumns {
  update_ids: string[];
  update_bot_ids: string[];
  update_types: string[];
  /** Each the Update as JSON text, without its update_seq. */
  update_payloads: string[];
}

/**
 * CTEs writing the Updates given as the parameters of UpdateColumns, ending in `written_updates`
 * (update_seq, update_id, bot_id, type, payload of each row written). With `gate`, nothing is written
 * unless that CTE has a row. The outbox (update-outbox.ts) writes their deliveries in the same statement.
 */
export function updatesWriteSql(p: Placeholders<UpdateColumns>, gate?: string): string {
  return `update_input AS (
     SELECT * FROM unnest(${p.update_ids}::uuid[], ${p.update_bot_ids}::varchar[], ${p.update_types}::varchar[],
                          ${p.update_payloads}::jsonb[])
         AS t(update_id, bot_id, type, payload)
      ${gate ? `WHERE EXISTS (SELECT 1 FROM ${gate})` : ''}
   ), written_updates AS (
     INSERT INTO updates (update_id, bot_id, type, payload)
     SELECT update_id, bot_id, type, payload FROM update_input
     ON CONFLICT (update_id) DO NOTHING
     RETURNING update_seq, update_id, bot_id, type, payload
   )`;
}

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

/**
 * The payload was written (by bot-api's UpdatesService) as the Update without its update_seq; the
 * reader names the shape it documents.
 */
export interface PendingUpdateRow<Payload> {
  update_seq: string;
  payload: Payload;
}

/**
 * The statements on `updates` that read and confirm them: getUpdates' backlog, and the confirmation of
 * Updates, which bot-dispatcher runs too when a webhook delivery succeeds. They are written with their
 * deliveries by the outbox (update-outbox.ts), from `updatesWriteSql`.
 */
export class UpdatesStore {
  constructor(private readonly dataSource: DataSource) {}
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
  async acknowledgeAll(on: SqlTarget, botId: string): Promise<void> {
    await runStatement(on, ACKNOWLEDGE_ALL, [botId]);
  }

  /** Updates older than the retention are dropped, confirmed or not; returns how many. */
  async purgeOlderThan(retentionHours: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(PURGE_OLDER_THAN, [retentionHours]);
    return result[1];
  }
}
