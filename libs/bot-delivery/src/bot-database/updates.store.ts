import { db, prepared, type BotDB, type Updates } from '@app/bot-schema';
import { Database, execute, RowOf, SqlTarget } from '@app/platform';
import { QueryCreator, Selectable, sql } from 'kysely';

/** The Updates of one or more events as parallel arrays, one element per Update. */
export interface UpdateColumns {
  update_ids: string[];
  update_bot_ids: string[];
  update_types: string[];
  /** Each the Update as JSON text, without its update_seq. */
  update_payloads: string[];
  /**
   * Each the recorded time of the event a derived update_id names (ISO 8601), or null for the time the
   * statement writes it: a repeat of the event then meets its first row within the same day.
   */
  update_created_ats: Array<string | null>;
}

/**
 * The CTEs `update_input` and `written_updates` (update_seq, update_id, bot_id, type, payload,
 * created_at of each row written), added to the caller's CTEs. With `gate`, the name of one
 * of those, nothing is written unless it has a row. The outbox (update-outbox.ts) writes their
 * deliveries in the same statement.
 */
export function withWrittenUpdates<DB extends BotDB>(
  qb: QueryCreator<DB>,
  p: UpdateColumns,
  gate?: string,
): QueryCreator<DB & WrittenUpdatesCtes> {
  // Built on the schema's own tables only; the caller's CTEs come back typed as they went in.
  const written = (qb as unknown as QueryCreator<BotDB>)
    .with('update_input', () =>
      db
        .selectFrom(
          sql<NewUpdate>`unnest(${p.update_ids}::uuid[], ${p.update_bot_ids}::varchar[], ${p.update_types}::varchar[],
                          ${p.update_payloads}::jsonb[], ${p.update_created_ats}::timestamptz[])`.as<'t'>(
            sql`t(update_id, bot_id, type, payload, created_at)`,
          ),
        )
        .selectAll()
        .$if(gate !== undefined, (qb) =>
          qb.where((eb) => eb.exists(eb.selectFrom(sql`${sql.table(gate!)}`.as('gate')).select(sql.lit(1).as('one')))),
        ),
    )
    .with('written_updates', () =>
      db
        .insertInto('updates')
        .columns(['update_id', 'bot_id', 'type', 'payload', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom(sql<NewUpdate>`${sql.table('update_input')}`.as('i'))
            .select((eb) => [
              'i.update_id',
              'i.bot_id',
              'i.type',
              'i.payload',
              eb.fn.coalesce('i.created_at', sql<Date>`now()`).as('created_at'),
            ]),
        )
        // No arbiter named: today the unique update_id catches a repeat, and on the table partitioned by
        // day the unique (update_id, created_at) will, where naming (update_id) would fail the statement.
        .onConflict((oc) => oc.doNothing())
        .returning(['update_seq', 'update_id', 'bot_id', 'type', 'payload', 'created_at']),
    );
  return written as unknown as QueryCreator<DB & WrittenUpdatesCtes>;
}

/** The CTEs withWrittenUpdates adds: the Updates given, and those written (an update_id seen before is not). */
export interface WrittenUpdatesCtes {
  update_input: NewUpdate;
  written_updates: Pick<Selectable<Updates>, 'update_seq' | 'update_id' | 'bot_id' | 'type' | 'payload' | 'created_at'>;
}

/** An Update as the statement that writes it takes it: a null created_at is the time of writing. */
type NewUpdate = Pick<Selectable<Updates>, 'update_id' | 'bot_id' | 'type' | 'payload'> & { created_at: Date | null };

/**
 * The one way an Update is confirmed, however it reached the bot: getUpdates with an offset,
 * drop_pending_updates, or a webhook delivery that succeeded (composed into the statement that records
 * attempts). A confirmed Update is never handed out again, neither by getUpdates nor to a webhook set
 * later. The caller's conditions pick the Updates `u` (and may add a relation to join with `from`).
 */
export function acknowledgeUpdates() {
  return db
    .updateTable('updates as u')
    .set({ acknowledged: sql.lit(true) })
    .where((eb) => eb.not(eb.ref('u.acknowledged')));
}

/** Created within the last `hours` hours: the getUpdates retention. */
const withinHours = (hours: number) => sql<Date>`now() - make_interval(hours => ${hours})`;

/**
 * Walks updates_pending (bot_id, update_seq) WHERE NOT acknowledged: the bot's own backlog only. The
 * upper bound changes no answer (an Update a statement can see was recorded before it, never an hour
 * after it started); on the table partitioned by day it keeps the days created ahead out of the scan.
 */
const PENDING_UPDATES = prepared(
  'bot_api_updates_pending',
  (db, p: { botId: string; offset: number; retentionHours: number; limit: number }) =>
    db
      .selectFrom('updates')
      .select(['update_seq', 'payload'])
      .where('bot_id', '=', p.botId)
      .where((eb) => eb.not(eb.ref('acknowledged')))
      .where('update_seq', '>=', sql<string>`${p.offset}`)
      .where('created_at', '>', withinHours(p.retentionHours))
      .where('created_at', '<', sql<Date>`now() + interval '1 hour'`)
      .orderBy('update_seq')
      .limit(p.limit),
);

/** Walks updates_pending (bot_id, update_seq) WHERE NOT acknowledged. */
const ACKNOWLEDGE_BELOW = prepared('bot_api_updates_acknowledge_below', (db, p: { botId: string; offset: number }) =>
  acknowledgeUpdates()
    .where('u.bot_id', '=', p.botId)
    .where('u.update_seq', '<', sql<string>`${p.offset}`),
);

/** Keeps the newest `keep` unconfirmed Updates of the bot and confirms every older one. */
const ACKNOWLEDGE_ALL_BUT_LAST = prepared(
  'bot_api_updates_acknowledge_all_but_last',
  (db, p: { botId: string; keep: number }) =>
    acknowledgeUpdates()
      .where('u.bot_id', '=', p.botId)
      .where('u.update_seq', '<', (eb) =>
        eb
          .selectFrom(
            eb
              .selectFrom('updates')
              .select('update_seq')
              .where('bot_id', '=', p.botId)
              .where((eb) => eb.not(eb.ref('acknowledged')))
              .orderBy('update_seq', 'desc')
              .limit(p.keep)
              .as('kept'),
          )
          .select((eb) => eb.fn.coalesce(eb.fn.min('kept.update_seq'), sql<string>`0`).as('below')),
      ),
);

/** What getWebhookInfo counts for a bot in polling mode: its Updates not confirmed within the retention. */
export const COUNT_WAITING_UPDATES = (botId: string, retentionHours: number) =>
  db
    .selectFrom('updates')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('bot_id', '=', botId)
    .where((eb) => eb.not(eb.ref('acknowledged')))
    .where('created_at', '>', withinHours(retentionHours));

/**
 * An unconfirmed Update as getUpdates hands it out. The payload was written (by bot-api's
 * UpdatesService) as the Update without its update_seq; the reader names the shape it documents.
 */
export type PendingUpdateRow<Payload> = Omit<RowOf<typeof PENDING_UPDATES>, 'payload'> & { payload: Payload };

/**
 * The statements on `updates` that read and confirm them: getUpdates' backlog, and the confirmation of
 * Updates, which bot-dispatcher runs too when a webhook delivery succeeds. They are written with their
 * deliveries by the outbox (update-outbox.ts), from `withWrittenUpdates`.
 */
export class UpdatesStore {
  constructor(private readonly database: Database) {}

  /** Unconfirmed Updates of the bot from `offset` on, within the retention, oldest first. */
  async pending<Payload>(
    botId: string,
    offset: number,
    retentionHours: number,
    limit: number,
  ): Promise<Array<PendingUpdateRow<Payload>>> {
    const rows = await PENDING_UPDATES.all(this.database, { botId, offset, retentionHours, limit });
    return rows as Array<PendingUpdateRow<Payload>>;
  }

  /** getUpdates' offset: every Update of the bot below it is confirmed. */
  async acknowledgeBelow(botId: string, offset: number): Promise<void> {
    await ACKNOWLEDGE_BELOW.run(this.database, { botId, offset });
  }

  /** Telegram's negative getUpdates offset: only the last `keep` pending Updates stay; all earlier are forgotten. */
  async acknowledgeAllButLast(botId: string, keep: number): Promise<void> {
    await ACKNOWLEDGE_ALL_BUT_LAST.run(this.database, { botId, keep });
  }

  /** drop_pending_updates: every Update the bot has not confirmed yet is dropped, in the caller's transaction. */
  async acknowledgeAll(on: SqlTarget, botId: string): Promise<void> {
    await execute(on, acknowledgeUpdates().where('u.bot_id', '=', botId));
  }
}
