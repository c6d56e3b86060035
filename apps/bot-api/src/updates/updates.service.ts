import { Injectable } from '@nestjs/common';
import { namedStatement, runNamed } from '@app/platform';
import { EntityManager } from 'typeorm';
import type { Bot } from '../bots/entities/bot.entity';
import { WebhookOutbox } from '../deliveries/webhook-outbox';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { updateIdFor } from './update-id';
import { isSubscribed, UpdateType } from './update-types';

/** What emit needs to know about the receiving bot. */
export type UpdateRecipient = Pick<Bot, 'id' | 'scopes' | 'allowedUpdates'>;

export interface UpdateEvent {
  bot: UpdateRecipient;
  type: UpdateType;
  /** The members named for the type, e.g. `{ message: {...} }` or `{ friend_request: {...} }` (spec 6.2). */
  payload: Record<string, unknown>;
  /** Required for message, photo, document, video, audio and location: it derives the update_id. */
  messageId?: number;
}

export interface EmittedUpdate {
  updateSeq: number;
  updateId: string;
}

export const RECEIVE_SCOPE = 'messages:receive';

/**
 * CTEs writing the Updates given as four parallel arrays from parameter `first` on (update ids, bot
 * ids, types, payloads) and the outbox rows of those whose bot is in webhook mode, ending in
 * `written_updates` and `delivered`. The delivery mode is read by the statement that writes the
 * delivery, so a bot switching modes concurrently either gets the row or has its Update found by
 * setWebhook's copy. With `gate`, nothing is written unless that CTE has a row.
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
     INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
     SELECT w.bot_id, w.update_seq, w.update_id, w.type, w.payload
       FROM written_updates w JOIN bots b ON b.id = w.bot_id AND b.delivery_mode = 'webhook'
     RETURNING id, update_id
   )`;
}

/** Result columns of `updatesWriteSql`, selected `FROM written_updates w LEFT JOIN delivered d`. */
export const WRITTEN_UPDATE_COLUMNS = `w.update_seq, w.update_id, w.bot_id, w.type, d.id AS delivery_id`;

const WRITE_UPDATES = namedStatement(
  'bot_api_updates_write',
  `WITH ${updatesWriteSql(1)}
   SELECT ${WRITTEN_UPDATE_COLUMNS} FROM written_updates w LEFT JOIN delivered d ON d.update_id = w.update_id`,
);

/** The Updates of one event, as the four array parameters of `updatesWriteSql`. */
export type UpdateColumns = [string[], string[], string[], string[]];

export interface WrittenUpdateRow {
  update_seq: string;
  update_id: string;
  bot_id: string;
  type: UpdateType;
  delivery_id: string | null;
}

@Injectable()
export class UpdatesService {
  constructor(
    private readonly notifier: UpdateNotifier,
    private readonly metrics: UpdatesMetrics,
    private readonly webhookOutbox: WebhookOutbox,
  ) {}

  /**
   * Writes one Update (and, in webhook mode, its delivery) in the caller's transaction and wakes the
   * bot's waiting getUpdates after commit.
   * Returns null when the bot does not receive this type (no messages:receive scope, not subscribed)
   * or when the same message Update was already written.
   */
  async emit(manager: EntityManager, event: UpdateEvent): Promise<EmittedUpdate | null> {
    return (await this.emitAll(manager, [event])).get(event.bot.id) ?? null;
  }

  /**
   * `emit` for the Updates of one event to several bots (one Update per bot), in one statement.
   * Returns what was written by bot id; bots that do not receive the type are left out.
   */
  async emitAll(manager: EntityManager, events: readonly UpdateEvent[]): Promise<Map<string, EmittedUpdate>> {
    const columns = this.columnsOf(events);
    if (columns === null) return new Map();
    const { rows } = await runNamed<WrittenUpdateRow>(manager, WRITE_UPDATES, columns);
    return this.written(manager, rows);
  }

  /** The events' Updates as statement parameters; null when no bot receives any of them. */
  columnsOf(events: readonly UpdateEvent[]): UpdateColumns | null {
    const wanted = events.filter(
      ({ bot, type }) => bot.scopes.includes(RECEIVE_SCOPE) && isSubscribed(bot.allowedUpdates, type),
    );
    if (wanted.length === 0) return null;
    const columns: UpdateColumns = [[], [], [], []];
    for (const { bot, type, payload, messageId } of wanted) {
      const updateId = updateIdFor(bot.id, type, messageId);
      columns[0].push(updateId);
      columns[1].push(bot.id);
      columns[2].push(type);
      columns[3].push(JSON.stringify({ update_id: updateId, type, bot_id: bot.id, ...payload }));
    }
    return columns;
  }

  /**
   * After a statement built with `updatesWriteSql` wrote these rows: the bots' pollers are woken and
   * the deliveries queued once `manager`'s transaction commits (at once when it has none).
   */
  written(manager: EntityManager, rows: readonly WrittenUpdateRow[]): Map<string, EmittedUpdate> {
    const emitted = new Map<string, EmittedUpdate>();
    const deliveries: string[] = [];
    for (const row of rows) {
      emitted.set(row.bot_id, { updateSeq: Number(row.update_seq), updateId: row.update_id });
      if (row.delivery_id !== null) deliveries.push(row.delivery_id);
      this.notifier.notifyAfterCommit(manager, row.bot_id);
      this.metrics.written.inc({ type: row.type });
    }
    this.webhookOutbox.deliverAfterCommit(manager, deliveries);
    return emitted;
  }
}
