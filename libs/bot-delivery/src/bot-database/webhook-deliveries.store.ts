import { db, prepared, type BotDB } from '@app/bot-schema';
import { RowOf } from '@app/platform';
import type { Updates, WebhookDeliveries } from '@app/bot-schema';
import { AliasedExpression, Expression, ExpressionBuilder, Selectable, sql } from 'kysely';
import { botAvailable } from './bot-availability';
import { BotOutcome, recordBotOutcomes } from './bot-delivery-settings.store';
import { DeliveryErrorClass, errorClass } from './delivery-error-class';
import { acknowledgeUpdates } from './updates.store';
import { logAttempts, RecordedAttempt } from './webhook-delivery-attempts.store';

/*
 * Every statement on `webhook_deliveries`, one row per Update a webhook bot is to receive. DeliveryStore
 * runs them for bot-api and bot-dispatcher, StaffDeliveryStore for platform staff; bot-api's redrive
 * jobs splice the redrivable relations. A statement that also writes another table composes that
 * table's store fragment (the attempt log, the Updates a success confirms, the bot side of an outcome);
 * the Update outbox (update-outbox.ts) composes `insertDeliveries` into the statement that writes Updates.
 */

const now = sql<Date>`now()`;

type DeliveryStatusValue = Selectable<BotDB['webhook_deliveries']>['status'];

/** Where an attempt leaves its delivery (due-delivery.ts's AttemptOutcome). */
type AttemptOutcome = Exclude<DeliveryStatusValue, 'pending'>;

/** Delivery statuses as literals of the statement text. */
const statusesIn = (...statuses: DeliveryStatusValue[]) => statuses.map((status) => sql.lit(status));

/** The statuses of a delivery the dispatcher still works on. */
const OPEN = statusesIn('pending', 'retrying');

// Creation

/** The Update columns a delivery is created from. */
export type UpdateToDeliver = Pick<
  Selectable<Updates>,
  'bot_id' | 'update_seq' | 'update_id' | 'type' | 'payload' | 'created_at'
>;

/**
 * The one way a delivery is created: one per Update of a bot that is in webhook mode when the statement
 * runs, carrying its own copy of the Update (so a dead letter outlives the getUpdates retention), at
 * most one per update_id. `updates` is a relation named `u` with the columns of UpdateToDeliver. A
 * delivery takes its Update's created_at, so both lie in the same day of their tables.
 * Reading the mode in the statement that writes the delivery means a bot switching modes concurrently
 * either gets the row or has its Update found by setWebhook's copy of the backlog (or, failing both,
 * by the sweeper's adoption of orphans).
 */
export function insertDeliveries(updates: AliasedExpression<UpdateToDeliver, 'u'>) {
  return (
    db
      .insertInto('webhook_deliveries')
      .columns(['bot_id', 'update_seq', 'update_id', 'update_type', 'payload', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(updates)
          .innerJoin('bot_delivery_settings as s', (join) =>
            join.onRef('s.bot_id', '=', 'u.bot_id').on('s.delivery_mode', '=', sql.lit('webhook')),
          )
          .select(['u.bot_id', 'u.update_seq', 'u.update_id', 'u.type', 'u.payload', 'u.created_at'])
          .orderBy('u.update_seq'),
      )
      // No arbiter named, as for the Updates (updates.store.ts): the unique update_id catches a repeat.
      .onConflict((oc) => oc.doNothing())
      .returning(['id', 'update_id', 'series', 'bot_id', 'created_at'])
  );
}

/** A delivery just created or restarted: what its first job needs. */
export type OpenedDelivery = Pick<Selectable<WebhookDeliveries>, 'id' | 'series' | 'bot_id' | 'created_at'>;

/** Updates a bot switching to webhook mode has not confirmed yet, within the getUpdates retention. */
export const DELIVER_BACKLOG = (botId: string, retentionHours: number) =>
  insertDeliveries(
    db
      .selectFrom('updates')
      .selectAll()
      .where('bot_id', '=', botId)
      .where((eb) => eb.not(eb.ref('acknowledged')))
      .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${retentionHours})`)
      .as('u'),
  );

/** Older than `graceMs` milliseconds. */
const olderThanMs = (graceMs: number) => sql<Date>`now() - make_interval(secs => ${graceMs}::double precision / 1000)`;

/**
 * Updates of webhook-mode bots that have no delivery although they are older than the grace: an
 * Update committed while a concurrent setWebhook switched the mode saw polling mode and wrote no
 * delivery. Driven by the webhook bots: the waiting Updates of polling bots (getUpdates backlogs)
 * are never read.
 */
export const ADOPT_ORPHANS = (graceMs: number, limit: number) =>
  insertDeliveries(
    db
      .selectFrom('bot_delivery_settings as s')
      .crossJoinLateral((eb) =>
        eb
          .selectFrom('updates as u')
          .select(['u.bot_id', 'u.update_seq', 'u.update_id', 'u.type', 'u.payload', 'u.created_at'])
          .whereRef('u.bot_id', '=', 's.bot_id')
          .where((eb) => eb.not(eb.ref('u.acknowledged')))
          .where('u.created_at', '<=', olderThanMs(graceMs))
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('webhook_deliveries as d')
                  .select(sql.lit(1).as('one'))
                  .whereRef('d.update_id', '=', 'u.update_id'),
              ),
            ),
          )
          .orderBy('u.update_seq')
          .limit(limit)
          .as('u'),
      )
      .select(['u.bot_id', 'u.update_seq', 'u.update_id', 'u.type', 'u.payload', 'u.created_at'])
      .where('s.delivery_mode', '=', sql.lit('webhook'))
      .where('s.webhook_url', 'is not', null)
      .orderBy('u.update_seq')
      .limit(limit)
      .as('u'),
  );

// The dispatcher

/**
 * The days of a batch of deliveries, [since, until): the partitions of the delivery tables a statement
 * on those deliveries reads. Bound as parameters, they prune the other days when the statement starts,
 * in a generic plan as in a custom one; '-infinity' and 'infinity' read every day.
 */
export interface CreatedWithin {
  since: string;
  until: string;
}

/** The parameters of RECORD_ATTEMPTS: one element per attempt in each array, in the order of `arrivals`. */
export interface AttemptColumns {
  /** The index of each attempt in the caller's batch, returned for those recorded. */
  arrivals: number[];
  ids: string[];
  series: number[];
  attempts: number[];
  statuses: AttemptOutcome[];
  last_errors: Array<string | null>;
  status_codes: Array<number | null>;
  retry_delays_ms: number[];
  latencies_ms: number[];
  errors: Array<string | null>;
  retry_afters_ms: Array<number | null>;
  /** The run of consecutive 410 Gone answers that pauses a bot's deliveries. */
  pause_after_gone: number;
}

/**
 * The deliveries of a batch of jobs with their bots' current webhook configuration: the previous secret
 * only while its rotation overlap lasts, the earliest next attempt a receiver asked for, the 410 pause.
 */
export const LOAD_DELIVERIES = prepared('bot_deliveries_load_many', (db, p: { ids: string[] } & CreatedWithin) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select([
      'd.id',
      'd.bot_id',
      'd.update_id',
      'd.update_seq',
      'd.status',
      'd.series',
      'd.attempts',
      'd.payload',
      's.delivery_mode',
      's.webhook_format',
      's.webhook_url',
      's.webhook_secret_ciphertext',
      's.webhook_allowed_ips',
      's.webhook_max_connections',
      sql<boolean>`(${botAvailable('b')})`.as('available'),
      sql<
        string | null
      >`CASE WHEN s.webhook_previous_secret_expires_at > now() THEN s.webhook_previous_secret_ciphertext END`.as(
        'webhook_previous_secret_ciphertext',
      ),
      sql<Date | null>`CASE WHEN s.webhook_not_before > now() THEN s.webhook_not_before END`.as('webhook_not_before'),
      sql<boolean>`s.webhook_paused_at IS NOT NULL`.as('paused'),
    ])
    .where('d.id', '=', (eb) => eb.fn.any(sql<string[]>`${p.ids}::uuid[]`))
    .where('d.created_at', '>=', sql<Date>`${p.since}::timestamptz`)
    .where('d.created_at', '<', sql<Date>`${p.until}::timestamptz`),
);

/** A row of the load statement: the delivery and its bot's delivery settings. */
export type LoadedDeliveryRow = RowOf<typeof LOAD_DELIVERIES>;

/** One attempt of a batch as RECORD_ATTEMPTS takes it apart (its CTE `outcome`). */
interface Outcome {
  arrival: number;
  id: string;
  series: number;
  attempt: number;
  status: AttemptOutcome;
  last_error: string | null;
  status_code: number | null;
  retry_delay_ms: number;
  latency_ms: number;
  error: string | null;
  retry_after_ms: number | null;
}

/** The CTE `moved` of RECORD_ATTEMPTS, as the fragments of other tables' stores read it. */
const moved = <Row>() => sql<Row>`${sql.table('moved')}`;

/**
 * Records a batch of attempts in one statement (one implicit transaction): each delivery moves on only
 * when it still has the series and attempt count its attempt started from, so a redelivery or
 * deleteWebhook that happened meanwhile wins and a duplicate run of the same job cannot count twice.
 * Only the deliveries that moved get their attempt row, their Update confirmed (success) or their
 * bot's last error (failure; the latest of the batch per bot). The bot also keeps the latest Retry-After
 * its receiver sent (as the earliest time of its next attempt) and its run of consecutive 410 Gone
 * answers: any other answer ends the run, and a run of `pause_after_gone` pauses the bot's deliveries
 * until setWebhook.
 * A success of a bot that redelivers its dead letters by itself marks the bot recovered (see `recovered`).
 * Returns the arrival index of each recorded input.
 */
export const RECORD_ATTEMPTS = prepared('bot_deliveries_record_attempts', (db, p: AttemptColumns) =>
  db
    .with('outcome', (qb) =>
      qb
        .selectFrom(
          sql<Outcome>`unnest(${p.arrivals}::int[], ${p.ids}::uuid[], ${p.series}::int[], ${p.attempts}::int[],
                   ${p.statuses}::varchar[], ${p.last_errors}::text[], ${p.status_codes}::int[],
                   ${p.retry_delays_ms}::int[], ${p.latencies_ms}::int[], ${p.errors}::text[],
                   ${p.retry_afters_ms}::int[])`.as<'o'>(
            sql`o(arrival, id, series, attempt, status, last_error, status_code, retry_delay_ms, latency_ms, error,
              retry_after_ms)`,
          ),
        )
        .selectAll(),
    )
    .with('moved', (qb) =>
      qb
        .updateTable('webhook_deliveries as d')
        .from('outcome as o')
        .set((eb) => ({
          status: eb.ref('o.status'),
          attempts: eb.ref('o.attempt'),
          last_error: eb.ref('o.last_error'),
          last_status_code: eb.ref('o.status_code'),
          next_attempt_at: sql<Date>`CASE WHEN o.status = 'retrying'
                                   THEN now() + make_interval(secs => o.retry_delay_ms::double precision / 1000)
                                   ELSE d.next_attempt_at END`,
          succeeded_at: sql<Date | null>`CASE WHEN o.status = 'succeeded' THEN now() END`,
          dead_letter_at: sql<Date | null>`CASE WHEN o.status = 'dead_letter' THEN now() END`,
          updated_at: now,
        }))
        .whereRef('d.id', '=', 'o.id')
        // The batch's ids once more, as a condition on the table itself: without it PostgreSQL may join
        // the batch against every open delivery (a hash join over the open-status index), a cost that
        // grows with the backlog, where this one reads the batch's rows by their primary key.
        .where('d.id', '=', (eb) => eb.fn.any(sql<string[]>`${p.ids}::uuid[]`))
        .whereRef('d.series', '=', 'o.series')
        .where('d.attempts', '=', (eb) => eb('o.attempt', '-', sql.lit(1)))
        .where('d.status', 'in', OPEN)
        .returning([
          'o.arrival',
          'd.id',
          'd.bot_id',
          'd.update_seq',
          'o.series',
          'o.attempt',
          'o.status',
          'o.status_code',
          'o.latency_ms',
          'o.error',
          'o.retry_after_ms',
          'd.trigger',
          'd.created_at as delivery_created_at',
        ]),
    )
    .with('logged', () => logAttempts(moved<RecordedAttempt>().as('r')))
    .with('confirmed', () =>
      // Delivered by webhook means confirmed: a later switch to polling must not hand it out again.
      acknowledgeUpdates()
        .from(moved<Pick<Outcome, 'status'> & { update_seq: string }>().as('m'))
        .where('m.status', '=', sql.lit('succeeded'))
        .whereRef('u.update_seq', '=', 'm.update_seq'),
    )
    .with('per_bot', (qb) =>
      qb
        .selectFrom('moved')
        .select((eb) => [
          'bot_id',
          sql<string | null>`(array_agg(error ORDER BY arrival DESC) FILTER (WHERE status <> 'succeeded'))[1]`.as(
            'error',
          ),
          eb.fn.countAll<string>().filterWhere('status_code', '=', sql.lit(410)).as('gone'),
          sql<boolean>`coalesce(bool_or(status_code IS NOT NULL AND status_code <> 410), false)`.as('other_answer'),
          eb.fn.max('retry_after_ms').as('retry_after_ms'),
          sql<boolean>`bool_or(status = 'succeeded')`.as('succeeded'),
        ])
        .groupBy('bot_id'),
    )
    .with('recovered', (qb) =>
      // Self-healing: the first success of a bot with the switch on while it has dead letters an
      // automatic redrive may take marks the bot once; bot-api's redrive worker starts the job.
      qb
        .selectFrom('per_bot as p')
        .innerJoin('bot_delivery_settings as s', 's.bot_id', 'p.bot_id')
        .select('s.bot_id')
        .where((eb) =>
          eb.and([
            eb.ref('p.succeeded'),
            eb.ref('s.auto_redeliver_dead_letters'),
            eb('s.webhook_recovered_at', 'is', null),
            eb('s.delivery_mode', '=', sql.lit('webhook')),
            eb.exists(
              eb
                .selectFrom('webhook_deliveries as x')
                .select(sql.lit(1).as('one'))
                .whereRef('x.bot_id', '=', 's.bot_id')
                .where('x.status', '=', sql.lit('dead_letter'))
                .where('x.trigger', '<>', sql.lit('auto')),
            ),
          ]),
        ),
    )
    .with('bot_state', () =>
      recordBotOutcomes(
        sql<BotOutcome>`${sql.table('per_bot')}`.as('p'),
        sql<{ bot_id: string }>`${sql.table('recovered')}`.as('r'),
        p.pause_after_gone,
      ),
    )
    .selectFrom('moved')
    .select('arrival'),
);

/** Open deliveries past their due time by more than the grace: their job was never added or got lost. */
export const OVERDUE = (graceMs: number, limit: number) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select(['d.id', 'd.series', 'd.attempts', 'd.bot_id', 'd.created_at'])
    .where('d.status', 'in', OPEN)
    .where('d.next_attempt_at', '<=', olderThanMs(graceMs))
    .where('s.delivery_mode', '=', sql.lit('webhook'))
    .where('s.webhook_url', 'is not', null)
    .where('s.webhook_paused_at', 'is', null)
    .where(botAvailable('b'))
    .orderBy('d.next_attempt_at')
    .limit(limit);

// The developer's delivery log and webhook

/**
 * A page of the delivery log of one of the caller's bots, newest first: no row when the bot is not
 * theirs, one row with only `owned` when the page is empty. Newest day first, by sequence within it
 * (an Update's time follows its sequence but for writes in flight together): walks
 * webhook_deliveries_bot_day through the days in order and stops at the page's limit.
 */
export const DELIVERY_PAGE = prepared(
  'bot_api_deliveries_page',
  (db, p: { botId: string; ownerId: string; status: string | null; limit: number; offset: number }) =>
    db
      .selectFrom('bots as b')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .selectAll()
            .whereRef('bot_id', '=', 'b.id')
            .where(sql<boolean>`(${p.status}::varchar IS NULL OR status = ${p.status}::varchar)`)
            .orderBy('created_at', 'desc')
            .orderBy('update_seq', 'desc')
            .limit(p.limit)
            .offset(p.offset)
            .as('d'),
        (join) => join.onTrue(),
      )
      .select([
        sql<true>`true`.as('owned'),
        'd.update_id',
        'd.update_type',
        'd.status',
        'd.attempts',
        'd.series',
        'd.trigger',
        'd.dead_letter_at',
        'd.last_error',
        'd.last_status_code',
        'd.next_attempt_at',
        'd.succeeded_at',
        'd.created_at',
        'd.updated_at',
      ])
      .where('b.id', '=', p.botId)
      .where('b.owner_id', '=', p.ownerId),
);

/** Without a status filter the count is an index-only scan of webhook_deliveries_bot. */
export const DELIVERY_COUNT = prepared('bot_api_deliveries_count', (db, p: { botId: string }) =>
  db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .where('bot_id', '=', p.botId),
);

export const DELIVERY_COUNT_IN_STATUS = prepared(
  'bot_api_deliveries_count_in_status',
  (db, p: { botId: string; status: DeliveryStatusValue }) =>
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .where('bot_id', '=', p.botId)
      .where('status', '=', p.status),
);

/** Starts a new attempt series by the bot's developer: the dispatcher skips jobs of the old one. */
const restartSeries = (eb: ExpressionBuilder<BotDB, 'webhook_deliveries'>) => ({
  status: sql.lit('pending') as Expression<DeliveryStatusValue>,
  series: eb('series', '+', 1),
  trigger: sql.lit('manual') as Expression<'manual'>,
  attempts: 0,
  next_attempt_at: now,
  dead_letter_at: null,
  succeeded_at: null,
  last_error: null,
  last_status_code: null,
  updated_at: now,
});

export const RESTART_FINISHED = (deliveryId: string) =>
  db
    .updateTable('webhook_deliveries')
    .set(restartSeries)
    .where('id', '=', deliveryId)
    .where('status', 'in', statusesIn('dead_letter', 'succeeded'))
    .returning(['id', 'series', 'bot_id', 'created_at']);

/** The dead letters of the bot, optionally within a dead_letter_at range [since, until). */
export const RESTART_DEAD_LETTERS = (botId: string, since: string | null, until: string | null) =>
  db
    .updateTable('webhook_deliveries')
    .set(restartSeries)
    .where('bot_id', '=', botId)
    .where('status', '=', sql.lit('dead_letter'))
    .$if(since !== null, (qb) => qb.where('dead_letter_at', '>=', sql<Date>`${since}::timestamptz`))
    .$if(until !== null, (qb) => qb.where('dead_letter_at', '<', sql<Date>`${until}::timestamptz`))
    .returning(['id', 'series', 'bot_id', 'created_at']);

/** Open deliveries are withdrawn when their bot leaves webhook mode, so nothing is POSTed any more. */
export const WITHDRAW_OPEN = (botId: string) =>
  db.deleteFrom('webhook_deliveries').where('bot_id', '=', botId).where('status', 'in', OPEN);

export const COUNT_OPEN = (botId: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('bot_id', '=', botId)
    .where('status', 'in', OPEN);

/** A bot's backlog for the console: its deliveries still to do and its dead letters, by status. */
export const DELIVERY_BACKLOG = (botId: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['status', sql<number>`count(*)::int`.as('count')])
    .where('bot_id', '=', botId)
    .where('status', 'in', statusesIn('pending', 'retrying', 'dead_letter'))
    .groupBy('status');

/** The bots with the most open deliveries (the dispatcher's per-bot queue depth); walks the partial due index. */
export const OPEN_BACKLOG_BY_BOT = (limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['bot_id', sql<number>`count(*)::int`.as('open')])
    .where('status', 'in', OPEN)
    .groupBy('bot_id')
    .orderBy(sql`count(*)`, 'desc')
    .orderBy('bot_id')
    .limit(limit);

/** A delivery as the developer's routes show it: every column but its copy of the Update. */
export const selectDelivery = () =>
  db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'bot_id',
      'update_seq',
      'update_id',
      'update_type',
      'status',
      'series',
      'trigger',
      'attempts',
      'next_attempt_at',
      'last_error',
      'last_status_code',
      'succeeded_at',
      'dead_letter_at',
      'created_at',
      'updated_at',
    ]);

// Platform staff: deliveries of every bot, and their redelivery

/**
 * When a delivery last changed state: when it became a dead letter, else its last attempt or
 * redelivery. The staff list is ordered and windowed by it.
 */
export const eventAt = (d: string) =>
  sql<Date>`COALESCE(${sql.ref(`${d}.dead_letter_at`)}, ${sql.ref(`${d}.updated_at`)})`;

/** Event times of `d` from `since` on, before `until`: the window of the staff routes. */
const eventFrom = (since: string) => [eventAt('d'), '>=', sql<Date>`${since}::timestamptz`] as const;
const eventBefore = (until: string) => [eventAt('d'), '<', sql<Date>`${until}::timestamptz`] as const;

/** The filter of the staff routes; null means "any". */
export interface StaffDeliveryFilter {
  status: DeliveryStatusValue | null;
  botId: string | null;
  since: string | null;
  until: string | null;
  errorClass: DeliveryErrorClass | null;
}

export interface StaffDeliveryCursor {
  eventAt: string;
  id: string;
}

/** Microsecond-exact text of a timestamp, so a keyset cursor resumes exactly after its row. */
const exactTime = (expression: Expression<Date>) =>
  sql<string>`to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The columns of a delivery in the staff list and detail. */
const STAFF_COLUMNS = [
  'd.id',
  'd.bot_id',
  'b.name as bot_name',
  'b.owner_id',
  'd.update_id',
  'd.update_type',
  'd.status',
  'd.attempts',
  'd.series',
  'd.trigger',
  'd.dead_letter_at',
  'd.last_error',
  'd.last_status_code',
] as const;

/**
 * A page of deliveries across all bots, newest event first, after the keyset (event time, id).
 * A row added later sorts before the cursor or after it by its own time, never shifting the rows
 * still to come, so paging stays correct while deliveries are written.
 */
export const STAFF_DELIVERY_PAGE = (filter: StaffDeliveryFilter, after: StaffDeliveryCursor | null, limit: number) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .select([
      ...STAFF_COLUMNS,
      'd.created_at',
      'd.updated_at',
      errorClass('d').as('error_class'),
      exactTime(eventAt('d')).as('event_at'),
    ])
    .$if(filter.status !== null, (qb) => qb.where('d.status', '=', filter.status!))
    .$if(filter.botId !== null, (qb) => qb.where('d.bot_id', '=', filter.botId!))
    .$if(filter.since !== null, (qb) => qb.where(...eventFrom(filter.since!)))
    .$if(filter.until !== null, (qb) => qb.where(...eventBefore(filter.until!)))
    .$if(filter.errorClass !== null, (qb) => qb.where(errorClass('d'), '=', filter.errorClass))
    .$if(after !== null, (qb) =>
      qb.where(sql<boolean>`(${eventAt('d')}, d.id) < (${after!.eventAt}::timestamptz, ${after!.id}::uuid)`),
    )
    .orderBy(eventAt('d'), 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit);

/** Counts per status within the window [since, until) of event times. */
export const STAFF_STATUS_COUNTS = (since: string | null, until: string | null) =>
  db
    .selectFrom('webhook_deliveries as d')
    .select(['d.status', sql<number>`count(*)::int`.as('count')])
    .$if(since !== null, (qb) => qb.where(...eventFrom(since!)))
    .$if(until !== null, (qb) => qb.where(...eventBefore(until!)))
    .groupBy('d.status');

/** Dead letters per error class within the window (null bounds: all of them). */
export const STAFF_DEAD_LETTERS_BY_CLASS = (since: string | null, until: string | null) =>
  db
    .selectFrom('webhook_deliveries as d')
    .select([errorClass('d').as('error_class'), sql<number>`count(*)::int`.as('count')])
    .where('d.status', '=', sql.lit('dead_letter'))
    .$if(since !== null, (qb) => qb.where('d.dead_letter_at', '>=', sql<Date>`${since}::timestamptz`))
    .$if(until !== null, (qb) => qb.where('d.dead_letter_at', '<', sql<Date>`${until}::timestamptz`))
    .groupBy(sql`1`);

/** The bots with the most dead letters in the window first, with their other counts; at most `limit`. */
export const STAFF_TOP_BOTS = (since: string | null, until: string | null, limit: number) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select([
      'd.bot_id',
      'b.name as bot_name',
      'b.owner_id',
      's.delivery_mode',
      sql<number>`count(*) FILTER (WHERE d.status = 'dead_letter')::int`.as('dead_letter'),
      sql<number>`count(*) FILTER (WHERE d.status IN ('pending', 'retrying'))::int`.as('open'),
      sql<number>`count(*) FILTER (WHERE d.status = 'succeeded')::int`.as('succeeded'),
      sql<number>`count(*)::int`.as('total'),
    ])
    .$if(since !== null, (qb) => qb.where(...eventFrom(since!)))
    .$if(until !== null, (qb) => qb.where(...eventBefore(until!)))
    .groupBy(['d.bot_id', 'b.name', 'b.owner_id', 's.delivery_mode'])
    .orderBy('dead_letter', 'desc')
    .orderBy('total', 'desc')
    .orderBy('d.bot_id')
    .limit(limit);

/** One delivery by update_id, with its Update and its bot. */
export const STAFF_DELIVERY_DETAIL = (updateId: string) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select([
      ...STAFF_COLUMNS,
      's.delivery_mode',
      'd.next_attempt_at',
      'd.succeeded_at',
      'd.created_at',
      'd.updated_at',
      (eb) => eb.ref('d.payload').$castTo<Record<string, unknown>>().as('payload'),
      errorClass('d').as('error_class'),
    ])
    .where('d.update_id', '=', sql<string>`${updateId}::uuid`);

/** The filter of a bulk redelivery; null means "any". */
export interface RedriveFilter {
  botId: string | null;
  since: string | null;
  until: string | null;
  errorClass: DeliveryErrorClass | null;
}

/**
 * What a bulk redelivery takes: dead letters matching the filter whose bot can receive them (webhook
 * mode, available), as a relation of (delivery_id, bot_id, update_seq). The dry run counts exactly this
 * relation and a redrive job snapshots it (bot-api's redrive-jobs store, in its own statement), so the
 * dry run's count is the job's total. Select from it `.as(...)`, or insert what it selects. The filter
 * is bound as `$n IS NULL OR ...` pairs, so a prepared statement has one text for every filter.
 */
export function redrivableDeadLetters(p: RedriveFilter) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select(['d.id as delivery_id', 'd.bot_id', 'd.update_seq'])
    .where('d.status', '=', sql.lit('dead_letter'))
    .where('s.delivery_mode', '=', sql.lit('webhook'))
    .where('s.webhook_url', 'is not', null)
    .where(botAvailable('b'))
    .where(sql<boolean>`(${p.botId}::varchar IS NULL OR d.bot_id = ${p.botId}::varchar)`)
    .where(sql<boolean>`(${p.since}::timestamptz IS NULL OR ${eventAt('d')} >= ${p.since}::timestamptz)`)
    .where(sql<boolean>`(${p.until}::timestamptz IS NULL OR ${eventAt('d')} < ${p.until}::timestamptz)`)
    .where(sql<boolean>`(${p.errorClass}::varchar IS NULL OR ${errorClass('d')} = ${p.errorClass}::varchar)`);
}

/** The dry run: how many dead letters a redrive with this filter would take, per bot. */
export const COUNT_REDRIVABLE = prepared('bot_api_deliveries_count_redrivable', (db, p: RedriveFilter) =>
  db
    .selectFrom(redrivableDeadLetters(p).as('r'))
    .select(['r.bot_id', sql<number>`count(*)::int`.as('count')])
    .groupBy('r.bot_id')
    .orderBy('count', 'desc')
    .orderBy('r.bot_id'),
);

/**
 * Staff or automatic redelivery: a new attempt series, started by `trigger` ('staff' or 'auto'), for
 * each listed delivery still in one of the `statuses` whose bot is in webhook mode. Returns those
 * restarted; the others changed meanwhile.
 */
export const RESTART_FOR_STAFF = (deliveryIds: string[], statuses: DeliveryStatusValue[], trigger: 'staff' | 'auto') =>
  db
    .updateTable('webhook_deliveries as d')
    .set((eb) => ({
      status: sql.lit('pending') as Expression<DeliveryStatusValue>,
      series: eb('d.series', '+', 1),
      trigger,
      attempts: 0,
      next_attempt_at: now,
      dead_letter_at: null,
      succeeded_at: null,
      last_error: null,
      last_status_code: null,
      updated_at: now,
    }))
    .where('d.id', '=', (eb) => eb.fn.any(sql<string[]>`${deliveryIds}::uuid[]`))
    .where('d.status', '=', (eb) => eb.fn.any(sql<DeliveryStatusValue[]>`${statuses}::varchar[]`))
    .where((eb) =>
      // One settings row per bot: the bot is in webhook mode as the delivery restarts.
      eb.exists(
        eb
          .selectFrom('bot_delivery_settings as s')
          .select(sql.lit(1).as('one'))
          .whereRef('s.bot_id', '=', 'd.bot_id')
          .where('s.delivery_mode', '=', sql.lit('webhook'))
          .where('s.webhook_url', 'is not', null),
      ),
    )
    .returning(['d.id', 'd.series', 'd.bot_id', 'd.created_at']);

/**
 * What an automatic redrive of the bot takes: its dead letters whose current series was not itself
 * started automatically (each dead letter is redelivered automatically once; one that fails again
 * waits for a person), while the bot still has the switch on and can receive them. A relation of
 * (delivery_id, bot_id, update_seq), used like redrivableDeadLetters.
 */
export function autoRedrivableDeadLetters(p: { botId: string }) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('bots as b', 'b.id', 'd.bot_id')
    .innerJoin('bot_delivery_settings as s', 's.bot_id', 'd.bot_id')
    .select(['d.id as delivery_id', 'd.bot_id', 'd.update_seq'])
    .where('d.bot_id', '=', p.botId)
    .where('d.status', '=', sql.lit('dead_letter'))
    .where('d.trigger', '<>', sql.lit('auto'))
    .where((eb) => eb.ref('s.auto_redeliver_dead_letters'))
    .where('s.delivery_mode', '=', sql.lit('webhook'))
    .where('s.webhook_url', 'is not', null)
    .where('s.webhook_paused_at', 'is', null)
    .where(botAvailable('b'));
}
