import { botAvailableSql } from './bot-availability';

/**
 * The error classes an SRE filters dead letters by, derived from the last attempt: its HTTP status
 * when the receiver answered, else the dispatcher's error text (timeouts, refused connections, TLS
 * failures and addresses the address policy refused).
 */
export const DELIVERY_ERROR_CLASSES = [
  'timeout',
  'connection_refused',
  'tls',
  'http_4xx',
  'http_5xx',
  'http_410',
  'address_refused',
  'other',
] as const;
export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

/** One definition of the error class of a delivery row `d`, for filters, counts and metrics alike. */
export function errorClassSql(d: string): string {
  return `(CASE
      WHEN ${d}.last_error IS NULL AND ${d}.last_status_code IS NULL THEN NULL
      WHEN ${d}.last_status_code = 410 THEN 'http_410'
      WHEN ${d}.last_status_code BETWEEN 400 AND 499 THEN 'http_4xx'
      WHEN ${d}.last_status_code >= 500 THEN 'http_5xx'
      WHEN ${d}.last_error ~* '(no response within|timeout|timed out|ETIMEDOUT)' THEN 'timeout'
      WHEN ${d}.last_error ~* 'ECONNREFUSED|connection refused' THEN 'connection_refused'
      WHEN ${d}.last_error ~* '(not connected|allowed_ips|private or reserved|address refused)' THEN 'address_refused'
      WHEN ${d}.last_error ~* '(CERT|TLS|SSL|self.signed|certificate|EPROTO)' THEN 'tls'
      ELSE 'other' END)`;
}

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

/**
 * What a bulk redelivery takes: dead letters matching the filter ($1 bot_id, $2 since, $3 until,
 * $4 error class) whose bot can receive them (webhook mode, available). The dry run counts exactly this relation and a redrive job
 * snapshots it, so the dry run's count is the job's total.
 */
export const redrivableDeadLettersSql = `(SELECT d.id AS delivery_id, d.bot_id, d.update_seq
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.status = 'dead_letter' AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
      AND ${botAvailableSql('b')}
      AND ($1::varchar IS NULL OR d.bot_id = $1::varchar)
      AND ($2::timestamptz IS NULL OR ${eventAtSql('d')} >= $2::timestamptz)
      AND ($3::timestamptz IS NULL OR ${eventAtSql('d')} < $3::timestamptz)
      AND ($4::varchar IS NULL OR ${errorClassSql('d')} = $4::varchar))`;

/** The dry run: how many dead letters a redrive with this filter would take, per bot. */
export const COUNT_REDRIVABLE = `SELECT r.bot_id, count(*)::int AS count
     FROM ${redrivableDeadLettersSql} r
    GROUP BY r.bot_id
    ORDER BY count DESC, r.bot_id`;

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
 * What an automatic redrive of bot $1 takes: its dead letters whose current series was not itself
 * started automatically (each dead letter is redelivered automatically once; one that fails again
 * waits for a person), while the bot still has the switch on and can receive them.
 */
export const autoRedrivableDeadLettersSql = `(SELECT d.id AS delivery_id, d.bot_id, d.update_seq
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
     JOIN bot_delivery_settings s ON s.bot_id = d.bot_id
    WHERE d.bot_id = $1 AND d.status = 'dead_letter' AND d."trigger" <> 'auto'
      AND s.auto_redeliver_dead_letters AND s.delivery_mode = 'webhook' AND s.webhook_url IS NOT NULL
      AND s.webhook_paused_at IS NULL AND ${botAvailableSql('b')})`;
