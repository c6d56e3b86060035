import { AttemptRecord, DeliverJobData, DeliveryDomain, DueDelivery } from '@app/bot-delivery';
import { Pool } from 'pg';

/** The one bot of the statement benches' databases: approved, enabled, in webhook mode. */
export const BENCH_BOT = 'b0b0b0b0b0b0b0b0b0b0b0b0';

export async function insertWebhookBot(pool: Pool, name: string): Promise<void> {
  await pool.query(
    `WITH bot AS (INSERT INTO bots (id, owner_id, name, review_status, status)
                  VALUES ($1, 'owner', $2, 'approved', 'enabled') RETURNING id)
     INSERT INTO bot_delivery_settings (bot_id, delivery_mode, webhook_url, webhook_secret_ciphertext)
     SELECT id, 'webhook', 'https://hooks.example/', 'sealed' FROM bot`,
    [BENCH_BOT, name],
  );
}

/** The jobs bot-api would have queued for these deliveries, each carrying its delivery's day. */
export function jobsFor(rows: Array<{ id: string; created_at: Date }>): DeliverJobData[] {
  return rows.map((row) => ({
    deliveryId: row.id,
    series: 1,
    priorAttempts: 0,
    botId: BENCH_BOT,
    createdAt: row.created_at.toISOString(),
  }));
}

/**
 * Attempts of the jobs' deliveries in a series none of them has: recording them runs the statement's
 * plan and moves nothing, so it can be timed again and again on the same rows.
 */
export async function recordsThatMoveNothing(domain: DeliveryDomain, jobs: DeliverJobData[]): Promise<AttemptRecord[]> {
  return (await domain.loadDue(jobs)).map((due) => ({
    delivery: { id: (due as DueDelivery).id, series: 99 },
    attempt: 1,
    outcome: 'succeeded',
    retryDelayMs: 0,
    result: { ok: true, statusCode: 200, latencyMs: 5, error: null },
  }));
}
