import { executeFirst, namedStatement, RowOf, SqlTarget } from '@app/platform';
import { db } from '@app/bot-schema';
import { WebhookDelivery } from '../entities/webhook-delivery.entity';
import { botAvailableSql } from './bot-availability';
import { recordBotOutcomesSql } from './bot-delivery-settings.store';
import { composedStatement, Placeholders } from './composed-statement';
import { DeliveryErrorClass, errorClassSql } from './delivery-error-class';
import { acknowledgeUpdatesSql } from './updates.store';
import { logAttemptsSql } from './webhook-delivery-attempts.store';

/*
 * Every statement on `webhook_deliveries`, one row per Update a webhook bot is to receive. DeliveryStore
 * runs them for bot-api and bot-dispatcher, StaffDeliveryStore for platform staff; bot-api's redrive
 * jobs splice the redrivable relations. A statement that also writes another table splices that
 * table's store fragment (the attempt log, the Updates a success confirms, the bot side of an outcome);
 * the Update outbox (update-outbox.ts) splices `insertDeliveriesSql` into the statement that writes Updates.
 */

// Creation

/**
 * The one way a delivery is created: one per Update of a bot that is in webhook mode when the statement
 * runs, carrying its own copy of the Update (so a dead letter outlives the getUpdates retention), at
 * most one per update_id. `updates` is a relation (a CTE or a parenthesised query) with the columns
 * bot_id, update_seq, update_id, type and payload. Reading the mode in the statement that writes the
 * delivery means a bot switching modes concurrently either gets the row or has its Update found by
 * setWebhook's copy of the backlog (or, failing both, by the sweeper's adoption of orphans).
 */
export function insertDeliveriesSql(updates: string): string {
  return `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
     SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
       FROM ${updates} u JOIN bot_delivery_settings s ON s.bot_id = u.bot_id AND s.delivery_mode = 'webhook'
      ORDER BY u.update_seq
     ON CONFLICT (update_id) DO NOTHING
     RETURNING id, update_id, series, bot_id`;
}

/** Updates a bot switching to webhook mode has not confirmed yet, within the getUpdates retention. */
export const DELIVER_BACKLOG = insertDeliveriesSql(
  `(SELECT * FROM updates WHERE bot_id = $1 AND NOT acknowledged AND created_at > now() - make_interval(hours => $2))`,
);

/**
 * Updates of webhook-mode bots that have no delivery although they are older than the grace: an
 * Update committed while a concurrent setWebhook switched the mode saw polling mode and wrote no
 * delivery. Driven by the webhook bots: the waiting Updates of polling bots (getUpdates backlogs)
 * are never read.
 */
export const ADOPT_ORPHANS = insertDeliveriesSql(`(
  SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
    FROM bot_delivery_settings s
    CROSS JOIN LATERAL (
      SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
        FROM updates u
       WHERE u.bot_id = s.bot_id AND NOT u.acknowledged
         AND u.created_at <= now() - make_interval(secs => $1::double precision / 1000)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.update_id = u.update_id)
       ORDER BY u.update_seq
       LIMIT $2) u
   WHERE s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
   ORDER BY u.update_seq
   LIMIT $2)`);

// The dispatcher

/** The parameters of RECORD_ATTEMPTS: one element per attempt in each array, in the order of `arrivals`. */
export interface AttemptColumns {
  /** The index of each attempt in the caller's batch, returned for those recorded. */
  arrivals: number[];
  ids: string[];
  series: number[];
  attempts: number[];
  statuses: string[];
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
export const LOAD_DELIVERIES = namedStatement(
  'bot_deliveries_load_many',
  `SELECT d.id, d.bot_id, d.update_id, d.update_seq, d.status, d.series, d.attempts, d.payload,
          s.delivery_mode, s.webhook_format, s.webhook_url, s.webhook_secret_ciphertext, s.webhook_allowed_ips,
          s.webhook_max_connections, (${botAvailableSql('b')}) AS available,
          CASE WHEN s.webhook_previous_secret_expires_at > now() THEN s.webhook_previous_secret_ciphertext END
            AS webhook_previous_secret_ciphertext,
          CASE WHEN s.webhook_not_before > now() THEN s.webhook_not_before END AS webhook_not_before,
          s.webhook_paused_at IS NOT NULL AS paused
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.id = ANY($1::uuid[])`,
);

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
export const RECORD_ATTEMPTS = composedStatement<AttemptColumns>(
  'bot_deliveries_record_attempts',
  (params) => `WITH outcome AS (
     SELECT *
       FROM unnest(${params.arrivals}::int[], ${params.ids}::uuid[], ${params.series}::int[], ${params.attempts}::int[],
                   ${params.statuses}::varchar[], ${params.last_errors}::text[], ${params.status_codes}::int[],
                   ${params.retry_delays_ms}::int[], ${params.latencies_ms}::int[], ${params.errors}::text[],
                   ${params.retry_afters_ms}::int[])
         AS o(arrival, id, series, attempt, status, last_error, status_code, retry_delay_ms, latency_ms, error,
              retry_after_ms)
   ),
   moved AS (
     UPDATE webhook_deliveries d
        SET status = o.status, attempts = o.attempt, last_error = o.last_error, last_status_code = o.status_code,
            next_attempt_at = CASE WHEN o.status = 'retrying'
                                   THEN now() + make_interval(secs => o.retry_delay_ms::double precision / 1000)
                                   ELSE d.next_attempt_at END,
            succeeded_at = CASE WHEN o.status = 'succeeded' THEN now() END,
            dead_letter_at = CASE WHEN o.status = 'dead_letter' THEN now() END,
            updated_at = now()
       FROM outcome o
      WHERE d.id = o.id AND d.series = o.series AND d.attempts = o.attempt - 1 AND d.status IN ('pending', 'retrying')
     RETURNING o.arrival, d.id, d.bot_id, d.update_seq, o.series, o.attempt, o.status, o.status_code, o.latency_ms, o.error,
               o.retry_after_ms, d."trigger"
   ),
   logged AS (
     ${logAttemptsSql('moved')}
   ),
   confirmed AS (
     -- Delivered by webhook means confirmed: a later switch to polling must not hand it out again.
     ${acknowledgeUpdatesSql(`m.status = 'succeeded' AND u.update_seq = m.update_seq`, 'moved m')}
   ),
   per_bot AS (
     SELECT bot_id,
            (array_agg(error ORDER BY arrival DESC) FILTER (WHERE status <> 'succeeded'))[1] AS error,
            count(*) FILTER (WHERE status_code = 410) AS gone,
            coalesce(bool_or(status_code IS NOT NULL AND status_code <> 410), false) AS other_answer,
            max(retry_after_ms) AS retry_after_ms,
            bool_or(status = 'succeeded') AS succeeded
       FROM moved GROUP BY bot_id
   ),
   recovered AS (
     -- Self-healing: the first success of a bot with the switch on while it has dead letters an
     -- automatic redrive may take marks the bot once; bot-api's redrive worker starts the job.
     SELECT s.bot_id
       FROM per_bot p JOIN bot_delivery_settings s ON s.bot_id = p.bot_id
      WHERE p.succeeded AND s.auto_redeliver_dead_letters AND s.webhook_recovered_at IS NULL
        AND s.delivery_mode = 'webhook'
        AND EXISTS (SELECT 1 FROM webhook_deliveries x
                     WHERE x.bot_id = s.bot_id AND x.status = 'dead_letter' AND x."trigger" <> 'auto')
   ),
   bot_state AS (
     ${recordBotOutcomesSql('per_bot', 'recovered', params)}
   )
   SELECT arrival FROM moved`,
);

/** Open deliveries past their due time by more than the grace: their job was never added or got lost. */
export const OVERDUE = `SELECT d.id, d.series, d.attempts, d.bot_id
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.status IN ('pending', 'retrying')
      AND d.next_attempt_at <= now() - make_interval(secs => $1::double precision / 1000)
      AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL AND s.webhook_paused_at IS NULL
      AND ${botAvailableSql('b')}
    ORDER BY d.next_attempt_at
    LIMIT $2`;

/** Finished deliveries (succeeded, dead letters) older than the retention, at most $2 of them. */
export const PURGE_FINISHED = `DELETE FROM webhook_deliveries WHERE id IN (
     SELECT id FROM webhook_deliveries
      WHERE status IN ('succeeded', 'dead_letter') AND updated_at < now() - make_interval(days => $1)
      LIMIT $2)`;

// The developer's delivery log and webhook

/**
 * A page of the delivery log of one of the caller's bots, newest first: no row when the bot is not
 * theirs, one row with only `owned` when the page is empty. Walks (bot_id, update_seq DESC).
 */
export const DELIVERY_PAGE = namedStatement(
  'bot_api_deliveries_page',
  `SELECT true AS owned, d.update_id, d.update_type, d.status, d.attempts, d.series, d."trigger", d.dead_letter_at,
          d.last_error, d.last_status_code, d.next_attempt_at, d.succeeded_at, d.created_at, d.updated_at
     FROM bots b
     LEFT JOIN LATERAL (
       SELECT * FROM webhook_deliveries
        WHERE bot_id = b.id AND ($3::varchar IS NULL OR status = $3::varchar)
        ORDER BY update_seq DESC LIMIT $4 OFFSET $5
     ) d ON true
    WHERE b.id = $1 AND b.owner_id = $2`,
);

/** Without a status filter the count is an index-only scan of webhook_deliveries_bot. */
export const DELIVERY_COUNT = namedStatement(
  'bot_api_deliveries_count',
  `SELECT count(*) AS total FROM webhook_deliveries WHERE bot_id = $1`,
);

export const DELIVERY_COUNT_IN_STATUS = namedStatement(
  'bot_api_deliveries_count_in_status',
  `SELECT count(*) AS total FROM webhook_deliveries WHERE bot_id = $1 AND status = $2`,
);

/** Starts a new attempt series by the bot's developer: the dispatcher skips jobs of the old one. */
const RESTART_SERIES = `status = 'pending', series = series + 1, "trigger" = 'manual', attempts = 0, next_attempt_at = now(),
  dead_letter_at = NULL, succeeded_at = NULL, last_error = NULL, last_status_code = NULL, updated_at = now()`;

export const RESTART_FINISHED = `UPDATE webhook_deliveries SET ${RESTART_SERIES}
    WHERE id = $1 AND status IN ('dead_letter', 'succeeded')
    RETURNING id, series, bot_id`;

export const RESTART_DEAD_LETTERS = `UPDATE webhook_deliveries SET ${RESTART_SERIES}
    WHERE bot_id = $1 AND status = 'dead_letter'
      AND ($2::timestamptz IS NULL OR dead_letter_at >= $2::timestamptz)
      AND ($3::timestamptz IS NULL OR dead_letter_at < $3::timestamptz)
    RETURNING id, series, bot_id`;

/** Open deliveries are withdrawn when their bot leaves webhook mode, so nothing is POSTed any more. */
export const WITHDRAW_OPEN = `DELETE FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`;

export const COUNT_OPEN = `SELECT count(*) FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`;

/** A bot's backlog for the console: its deliveries still to do and its dead letters, by status. */
export const DELIVERY_BACKLOG = `SELECT status, count(*)::int AS count FROM webhook_deliveries
    WHERE bot_id = $1 AND status IN ('pending', 'retrying', 'dead_letter')
    GROUP BY status`;

/** The bots with the most open deliveries (the dispatcher's per-bot queue depth); walks the partial due index. */
export const OPEN_BACKLOG_BY_BOT = `SELECT bot_id, count(*)::int AS open FROM webhook_deliveries
    WHERE status IN ('pending', 'retrying')
    GROUP BY bot_id ORDER BY count(*) DESC, bot_id LIMIT $1`;

/** A delivery as the developer's routes show it: every column but its copy of the Update. */
const selectDelivery = () =>
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

type DeliveryRow = RowOf<ReturnType<typeof selectDelivery>>;

function webhookDeliveryOf(row: DeliveryRow): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: row.id,
    botId: row.bot_id,
    updateSeq: Number(row.update_seq),
    updateId: row.update_id,
    updateType: row.update_type,
    status: row.status,
    series: row.series,
    trigger: row.trigger,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    succeededAt: row.succeeded_at,
    deadLetterAt: row.dead_letter_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

/** One of the bot's deliveries by its Update's id, in the caller's transaction. */
export async function deliveryOfUpdate(
  on: SqlTarget,
  botId: string,
  updateId: string,
): Promise<WebhookDelivery | null> {
  const row = await executeFirst(
    on,
    selectDelivery().where('bot_id', '=', botId).where('update_id', '=', updateId).limit(1),
  );
  return row ? webhookDeliveryOf(row) : null;
}

/** The delivery with this id; it must exist. */
export async function deliveryById(on: SqlTarget, id: string): Promise<WebhookDelivery> {
  const row = await executeFirst(on, selectDelivery().where('id', '=', id).limit(1));
  if (!row) throw new Error(`webhook delivery ${id} not found`);
  return webhookDeliveryOf(row);
}

// Platform staff: deliveries of every bot, and their redelivery

/**
 * When a delivery last changed state: when it became a dead letter, else its last attempt or
 * redelivery. The staff list is ordered and windowed by it.
 */
export const eventAtSql = (d: string): string => `COALESCE(${d}.dead_letter_at, ${d}.updated_at)`;

/**
 * The filter of the staff routes over webhook_deliveries `d`: $1 status, $2 bot_id, $3 since,
 * $4 until, $5 error class (each null for "any").
 */
const STAFF_FILTER = `($1::varchar IS NULL OR d.status = $1::varchar)
      AND ($2::varchar IS NULL OR d.bot_id = $2::varchar)
      AND ($3::timestamptz IS NULL OR ${eventAtSql('d')} >= $3::timestamptz)
      AND ($4::timestamptz IS NULL OR ${eventAtSql('d')} < $4::timestamptz)
      AND ($5::varchar IS NULL OR ${errorClassSql('d')} = $5::varchar)`;

/** Microsecond-exact text of a timestamp, so a keyset cursor resumes exactly after its row. */
const exactTime = (expression: string): string =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A page of deliveries across all bots, newest event first, after the keyset ($6 event time, $7 id).
 * A row added later sorts before the cursor or after it by its own time, never shifting the rows
 * still to come, so paging stays correct while deliveries are written.
 */
export const STAFF_DELIVERY_PAGE = `SELECT d.id, d.bot_id, b.name AS bot_name, b.owner_id, d.update_id, d.update_type, d.status,
          d.attempts, d.series, d."trigger", d.dead_letter_at, d.last_error, d.last_status_code, d.created_at, d.updated_at,
          ${errorClassSql('d')} AS error_class, ${exactTime(eventAtSql('d'))} AS event_at
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
    WHERE ${STAFF_FILTER}
      AND ($6::timestamptz IS NULL OR (${eventAtSql('d')}, d.id) < ($6::timestamptz, $7::uuid))
    ORDER BY ${eventAtSql('d')} DESC, d.id DESC
    LIMIT $8`;

/** Counts per status within the window [$1, $2) of event times. */
export const STAFF_STATUS_COUNTS = `SELECT d.status, count(*)::int AS count
     FROM webhook_deliveries d
    WHERE ($1::timestamptz IS NULL OR ${eventAtSql('d')} >= $1::timestamptz)
      AND ($2::timestamptz IS NULL OR ${eventAtSql('d')} < $2::timestamptz)
    GROUP BY d.status`;

/** Dead letters per error class within the window (null bounds: all of them). */
export const STAFF_DEAD_LETTERS_BY_CLASS = `SELECT ${errorClassSql('d')} AS error_class, count(*)::int AS count
     FROM webhook_deliveries d
    WHERE d.status = 'dead_letter'
      AND ($1::timestamptz IS NULL OR d.dead_letter_at >= $1::timestamptz)
      AND ($2::timestamptz IS NULL OR d.dead_letter_at < $2::timestamptz)
    GROUP BY 1`;

/** The bots with the most dead letters in the window first, with their other counts; at most $3. */
export const STAFF_TOP_BOTS = `SELECT d.bot_id, b.name AS bot_name, b.owner_id, s.delivery_mode,
          count(*) FILTER (WHERE d.status = 'dead_letter')::int AS dead_letter,
          count(*) FILTER (WHERE d.status IN ('pending', 'retrying'))::int AS open,
          count(*) FILTER (WHERE d.status = 'succeeded')::int AS succeeded,
          count(*)::int AS total
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE ($1::timestamptz IS NULL OR ${eventAtSql('d')} >= $1::timestamptz)
      AND ($2::timestamptz IS NULL OR ${eventAtSql('d')} < $2::timestamptz)
    GROUP BY d.bot_id, b.name, b.owner_id, s.delivery_mode
    ORDER BY dead_letter DESC, total DESC, d.bot_id
    LIMIT $3`;

/** One delivery by update_id, with its Update and its bot. */
export const STAFF_DELIVERY_DETAIL = `SELECT d.id, d.bot_id, b.name AS bot_name, b.owner_id, s.delivery_mode, d.update_id,
          d.update_type, d.status, d.attempts, d.series, d."trigger", d.dead_letter_at, d.last_error, d.last_status_code,
          d.next_attempt_at, d.succeeded_at, d.created_at, d.updated_at, d.payload,
          ${errorClassSql('d')} AS error_class
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.update_id = $1::uuid`;

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
 * dry run's count is the job's total. The filter's placeholders are named by the splicing statement.
 */
export function redrivableDeadLettersSql(p: Placeholders<RedriveFilter>): string {
  return `(SELECT d.id AS delivery_id, d.bot_id, d.update_seq
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.status = 'dead_letter' AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
      AND ${botAvailableSql('b')}
      AND (${p.botId}::varchar IS NULL OR d.bot_id = ${p.botId}::varchar)
      AND (${p.since}::timestamptz IS NULL OR ${eventAtSql('d')} >= ${p.since}::timestamptz)
      AND (${p.until}::timestamptz IS NULL OR ${eventAtSql('d')} < ${p.until}::timestamptz)
      AND (${p.errorClass}::varchar IS NULL OR ${errorClassSql('d')} = ${p.errorClass}::varchar))`;
}

/** The dry run: how many dead letters a redrive with this filter would take, per bot. */
export const COUNT_REDRIVABLE = composedStatement<RedriveFilter>(
  'bot_api_deliveries_count_redrivable',
  (p) => `SELECT r.bot_id, count(*)::int AS count
     FROM ${redrivableDeadLettersSql(p)} r
    GROUP BY r.bot_id
    ORDER BY count DESC, r.bot_id`,
);

/**
 * Staff or automatic redelivery: a new attempt series, started by trigger $3 ('staff' or 'auto'), for
 * each listed delivery still in one of the statuses $2 whose bot is in webhook mode. Returns those
 * restarted; the others changed meanwhile.
 */
export const RESTART_FOR_STAFF = `UPDATE webhook_deliveries d SET status = 'pending', series = d.series + 1, "trigger" = $3,
        attempts = 0,
        next_attempt_at = now(), dead_letter_at = NULL, succeeded_at = NULL, last_error = NULL,
        last_status_code = NULL, updated_at = now()
   FROM bot_delivery_settings s
  WHERE d.id = ANY($1::uuid[]) AND d.status = ANY($2::varchar[])
    AND s.bot_id = d.bot_id AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
  RETURNING d.id, d.series, d.bot_id`;

/**
 * What an automatic redrive of the bot takes: its dead letters whose current series was not itself
 * started automatically (each dead letter is redelivered automatically once; one that fails again
 * waits for a person), while the bot still has the switch on and can receive them. A relation of
 * (delivery_id, bot_id, update_seq), spliced like redrivableDeadLettersSql.
 */
export function autoRedrivableDeadLettersSql(p: Placeholders<{ botId: string }>): string {
  return `(SELECT d.id AS delivery_id, d.bot_id, d.update_seq
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.bot_id = ${p.botId} AND d.status = 'dead_letter' AND d."trigger" <> 'auto'
      AND s.auto_redeliver_dead_letters AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
      AND s.webhook_paused_at IS NULL AND ${botAvailableSql('b')})`;
}
