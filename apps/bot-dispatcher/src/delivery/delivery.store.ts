import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DeliverJobData, DeliveryStatus, MAX_DELIVERY_ATTEMPTS, WEBHOOK_DELIVER_FAILED } from '@app/webhook-queue';
import { DataSource } from 'typeorm';
import type { SendResult } from './webhook-sender';

/** What one job needs: the delivery, its Update and the bot's current webhook configuration. */
export interface DueDelivery {
  id: string;
  botId: string;
  updateId: string;
  series: number;
  attempts: number;
  payload: Record<string, unknown>;
  url: string;
  secretCiphertext: string;
  allowedIps: string[] | null;
  maxConnections: number;
}

export type SkipReason = 'gone' | 'finished' | 'superseded' | 'not_webhook' | 'bot_unavailable';

interface LoadedRow {
  id: string;
  bot_id: string;
  update_id: string;
  status: DeliveryStatus;
  series: number;
  attempts: number;
  payload: Record<string, unknown>;
  delivery_mode: string;
  webhook_url: string | null;
  webhook_secret_ciphertext: string | null;
  webhook_allowed_ips: string[] | null;
  webhook_max_connections: number;
  available: boolean;
}

export type AttemptOutcome = 'succeeded' | 'retrying' | 'dead_letter';

export interface AttemptRecord {
  delivery: DueDelivery;
  attempt: number;
  result: SendResult;
  outcome: AttemptOutcome;
  retryDelayMs: number;
}

/** The deliveries of a batch of jobs with their bots' current webhook configuration. */
const loadDeliveries = namedStatement(
  'dispatcher.delivery.load-many',
  `SELECT d.id, d.bot_id, d.update_id, d.status, d.series, d.attempts, d.payload,
          b.delivery_mode, b.webhook_url, b.webhook_secret_ciphertext, b.webhook_allowed_ips,
          b.webhook_max_connections, (b.review_status = 'approved' AND b.status = 'enabled') AS available
     FROM webhook_deliveries d
     JOIN bots b ON b.id = d.bot_id
    WHERE d.id = ANY($1::uuid[])`,
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Records a batch of attempts in one statement (one implicit transaction): each delivery moves on only
 * when it still has the series and attempt count its attempt started from, so a redelivery or
 * deleteWebhook that happened meanwhile wins and a duplicate run of the same job cannot count twice.
 * Only the deliveries that moved get their attempt row, their Update confirmed (success) or their
 * bot's last error (failure; the latest of the batch per bot). Returns the arrival index of each recorded input.
 */
const recordAttempts = namedStatement(
  'dispatcher.delivery.record-attempts',
  `WITH outcome AS (
     SELECT *
       FROM unnest($1::int[], $2::uuid[], $3::int[], $4::int[], $5::varchar[], $6::text[], $7::int[], $8::int[],
                   $9::int[], $10::text[])
         AS o(arrival, id, series, attempt, status, last_error, status_code, retry_delay_ms, latency_ms, error)
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
     RETURNING o.arrival, d.id, d.bot_id, d.update_seq, o.series, o.attempt, o.status, o.status_code, o.latency_ms, o.error
   ),
   logged AS (
     INSERT INTO webhook_delivery_attempts (delivery_id, series, attempt, status_code, latency_ms, error)
     SELECT id, series, attempt, status_code, latency_ms, error FROM moved
   ),
   confirmed AS (
     -- Delivered by webhook means confirmed: a later switch to polling must not hand it out again.
     UPDATE updates u SET acknowledged = true
       FROM moved m
      WHERE m.status = 'succeeded' AND u.update_seq = m.update_seq AND NOT u.acknowledged
   ),
   last_error AS (
     UPDATE bots b SET webhook_last_error_at = now(), webhook_last_error_message = e.error
       FROM (SELECT DISTINCT ON (bot_id) bot_id, error FROM moved WHERE status <> 'succeeded' ORDER BY bot_id, arrival DESC) e
      WHERE b.id = e.bot_id AND b.delivery_mode = 'webhook'
   )
   SELECT arrival FROM moved`,
);

function dueOrSkipped(job: DeliverJobData, row: LoadedRow | undefined): DueDelivery | SkipReason {
  if (!row) return 'gone';
  if (row.series !== job.series) return 'superseded';
  if (row.status !== 'pending' && row.status !== 'retrying') return 'finished';
  if (row.attempts >= MAX_DELIVERY_ATTEMPTS) return 'finished';
  if (row.delivery_mode !== 'webhook' || !row.webhook_url || !row.webhook_secret_ciphertext) return 'not_webhook';
  if (!row.available) return 'bot_unavailable';
  return {
    id: row.id,
    botId: row.bot_id,
    updateId: row.update_id,
    series: row.series,
    attempts: row.attempts,
    payload: row.payload,
    url: row.webhook_url,
    secretCiphertext: row.webhook_secret_ciphertext,
    allowedIps: row.webhook_allowed_ips,
    maxConnections: row.webhook_max_connections,
  };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** PostgreSQL side of the dispatcher: the delivery log stays the source of truth. */
@Injectable()
export class DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** What each job finds, in order: its due delivery, or why it has nothing to do. One statement for all. */
  async loadMany(jobs: readonly DeliverJobData[]): Promise<Array<DueDelivery | SkipReason>> {
    // A malformed id (a job not written by bot-api) must not fail the statement of the whole batch.
    const ids = [...new Set(jobs.map((job) => job.deliveryId).filter((id) => UUID.test(id)))];
    const { rows } = ids.length > 0 ? await runNamed<LoadedRow>(this.dataSource, loadDeliveries, [ids]) : { rows: [] };
    const byId = new Map(rows.map((row) => [row.id, row]));
    return jobs.map((job) => dueOrSkipped(job, byId.get(job.deliveryId.toLowerCase())));
  }

  /**
   * Records attempts and moves their deliveries on, all in one statement. Returns, per record and in
   * the same order, whether it was recorded (false: superseded by a redelivery, a deleteWebhook or a
   * duplicate run of the job).
   */
  async recordMany(records: readonly AttemptRecord[]): Promise<boolean[]> {
    // Inputs in delivery id order in every replica, so concurrent batches lock rows in one order (the
    // recorder retries the rare deadlock that remains, e.g. with a transaction of bot-api).
    const order = records
      .map((_, index) => index)
      .sort((a, b) => compare(records[a].delivery.id, records[b].delivery.id));
    const column = <T>(pick: (record: AttemptRecord) => T): T[] => order.map((index) => pick(records[index]));
    const { rows } = await runNamed<{ arrival: number }>(this.dataSource, recordAttempts, [
      order,
      column((r) => r.delivery.id),
      column((r) => r.delivery.series),
      column((r) => r.attempt),
      column((r) => r.outcome),
      column((r) =>
        r.outcome === 'dead_letter'
          ? `${WEBHOOK_DELIVER_FAILED}: ${MAX_DELIVERY_ATTEMPTS} attempts failed; last: ${r.result.error}`
          : r.result.error,
      ),
      column((r) => r.result.statusCode),
      column((r) => r.retryDelayMs),
      column((r) => r.result.latencyMs),
      column((r) => r.result.error),
    ]);
    const recorded = new Array<boolean>(records.length).fill(false);
    for (const row of rows) recorded[row.arrival] = true;
    return recorded;
  }

  /** Finished deliveries (succeeded, dead letters) older than the retention, in batches; returns how many. */
  async purgeFinished(retentionDays: number, batch: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries
          WHERE status IN ('succeeded', 'dead_letter') AND updated_at < now() - make_interval(days => $1)
          LIMIT $2)`,
      [retentionDays, batch],
    );
    return result[1];
  }

  /**
   * Updates of webhook-mode bots that have no delivery although they are older than the grace: an
   * Update committed while a concurrent setWebhook switched the mode saw polling mode and wrote no
   * delivery. Gives each one (its own copy of the payload); returns the new deliveries.
   */
  async adoptOrphans(graceMs: number, limit: number): Promise<Array<{ id: string }>> {
    // Driven by the webhook bots: the waiting Updates of polling bots (getUpdates backlogs) are never read.
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
       SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
         FROM bots b
         CROSS JOIN LATERAL (
           SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
             FROM updates u
            WHERE u.bot_id = b.id AND NOT u.acknowledged
              AND u.created_at <= now() - make_interval(secs => $1::double precision / 1000)
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.update_id = u.update_id)
            ORDER BY u.update_seq
            LIMIT $2) u
        WHERE b.delivery_mode = 'webhook' AND b.webhook_url IS NOT NULL
        ORDER BY u.update_seq
        LIMIT $2
       ON CONFLICT (update_id) DO NOTHING
       RETURNING id`,
      [graceMs, limit],
    );
    return rows;
  }

  /** Open deliveries past their due time by more than the grace: their job was never added or got lost. */
  async overdue(graceMs: number, limit: number): Promise<Array<{ id: string; series: number; attempts: number }>> {
    return this.dataSource.query(
      `SELECT d.id, d.series, d.attempts
         FROM webhook_deliveries d
         JOIN bots b ON b.id = d.bot_id
        WHERE d.status IN ('pending', 'retrying')
          AND d.next_attempt_at <= now() - make_interval(secs => $1::double precision / 1000)
          AND b.delivery_mode = 'webhook' AND b.webhook_url IS NOT NULL
          AND b.review_status = 'approved' AND b.status = 'enabled'
        ORDER BY d.next_attempt_at
        LIMIT $2`,
      [graceMs, limit],
    );
  }
}
