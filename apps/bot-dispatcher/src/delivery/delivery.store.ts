import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
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

/** PostgreSQL side of the dispatcher: the delivery log stays the source of truth. */
@Injectable()
export class DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async load(job: DeliverJobData): Promise<DueDelivery | SkipReason> {
    const rows: LoadedRow[] = await this.dataSource.query(
      `SELECT d.id, d.bot_id, d.update_id, d.status, d.series, d.attempts, d.payload,
              b.delivery_mode, b.webhook_url, b.webhook_secret_ciphertext, b.webhook_allowed_ips,
              b.webhook_max_connections, (b.review_status = 'approved' AND b.status = 'enabled') AS available
         FROM webhook_deliveries d
         JOIN bots b ON b.id = d.bot_id
        WHERE d.id = $1`,
      [job.deliveryId],
    );
    const row = rows[0];
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

  /**
   * Records one attempt and moves the delivery on, in one transaction. The UPDATE is conditional on
   * the series and attempt count it started from, so a redelivery or deleteWebhook that happened
   * meanwhile wins and a duplicate run of the same job cannot count twice. Returns false then.
   */
  async record({ delivery, attempt, result, outcome, retryDelayMs }: AttemptRecord): Promise<boolean> {
    const lastError =
      outcome === 'dead_letter'
        ? `${WEBHOOK_DELIVER_FAILED}: ${MAX_DELIVERY_ATTEMPTS} attempts failed; last: ${result.error}`
        : result.error;
    return this.dataSource.transaction(async (manager) => {
      const updated: [Array<{ update_seq: string }>, number] = await manager.query(
        `UPDATE webhook_deliveries
            SET status = $4::varchar, attempts = $3, last_error = $5, last_status_code = $6,
                next_attempt_at = CASE WHEN $4::varchar = 'retrying' THEN now() + make_interval(secs => $7::double precision / 1000)
                                       ELSE next_attempt_at END,
                succeeded_at = CASE WHEN $4::varchar = 'succeeded' THEN now() END,
                dead_letter_at = CASE WHEN $4::varchar = 'dead_letter' THEN now() END,
                updated_at = now()
          WHERE id = $1 AND series = $2 AND attempts = $3 - 1 AND status IN ('pending', 'retrying')
          RETURNING update_seq`,
        [delivery.id, delivery.series, attempt, outcome, lastError, result.statusCode, retryDelayMs],
      );
      if (updated[1] === 0) return false;
      await manager.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, series, attempt, status_code, latency_ms, error)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [delivery.id, delivery.series, attempt, result.statusCode, result.latencyMs, result.error],
      );
      if (outcome === 'succeeded') {
        // Delivered by webhook means confirmed: a later switch to polling must not hand it out again.
        await manager.query(`UPDATE updates SET acknowledged = true WHERE update_seq = $1`, [updated[0][0].update_seq]);
      } else {
        await manager.query(
          `UPDATE bots SET webhook_last_error_at = now(), webhook_last_error_message = $2
            WHERE id = $1 AND delivery_mode = 'webhook'`,
          [delivery.botId, result.error],
        );
      }
      return true;
    });
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
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
       SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
         FROM updates u
         JOIN bots b ON b.id = u.bot_id
        WHERE NOT u.acknowledged
          AND u.created_at <= now() - make_interval(secs => $1::double precision / 1000)
          AND b.delivery_mode = 'webhook' AND b.webhook_url IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.update_id = u.update_id)
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
