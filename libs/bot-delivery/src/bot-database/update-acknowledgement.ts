import { namedStatement, runNamed } from '@app/platform';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * The one way an Update is confirmed, however it reached the bot: getUpdates with an offset,
 * drop_pending_updates, or a webhook delivery that succeeded. A confirmed Update is never handed out
 * again, neither by getUpdates nor to a webhook set later. `where` filters `updates u`; `from` names
 * what it joins.
 */
export function acknowledgeUpdatesSql(where: string, from?: string): string {
  return `UPDATE updates u SET acknowledged = true${from ? ` FROM ${from}` : ''}
    WHERE ${where} AND NOT u.acknowledged`;
}

/** Walks updates_pending (bot_id, update_seq) WHERE NOT acknowledged. */
const ACKNOWLEDGE_BELOW = namedStatement(
  'bot_api_updates_acknowledge_below',
  acknowledgeUpdatesSql('u.bot_id = $1 AND u.update_seq < $2'),
);

const ACKNOWLEDGE_ALL = acknowledgeUpdatesSql('u.bot_id = $1');

/** getUpdates' offset: every Update of the bot below it is confirmed. */
export async function acknowledgeUpdatesBelow(
  on: DataSource | EntityManager,
  botId: string,
  offset: number,
): Promise<void> {
  await runNamed(on, ACKNOWLEDGE_BELOW, [botId, offset]);
}

/** drop_pending_updates: every Update the bot has not confirmed yet is dropped. */
export async function acknowledgeAllUpdates(manager: EntityManager, botId: string): Promise<void> {
  await manager.query(ACKNOWLEDGE_ALL, [botId]);
}

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

/** Telegram's negative getUpdates offset: only the last `keep` pending Updates stay; all earlier are forgotten. */
export async function acknowledgeAllButLastUpdates(
  on: DataSource | EntityManager,
  botId: string,
  keep: number,
): Promise<void> {
  await runNamed(on, ACKNOWLEDGE_ALL_BUT_LAST, [botId, keep]);
}
