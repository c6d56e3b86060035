import { db, type WebhookDeliveryAttempts } from '@app/bot-schema';
import type { AliasedExpression, Selectable } from 'kysely';
import { executeAll, SqlTarget } from '@app/platform';
import { WebhookDeliveryAttempt } from '../entities/webhook-delivery-attempt.entity';

/**
 * Every statement on `webhook_delivery_attempts`, the log of each POST of a delivery. Attempts are
 * written only by the statement that records them on their deliveries (RECORD_ATTEMPTS of
 * webhook-deliveries.store.ts), which composes `logAttempts`; DeliveryStore reads them.
 */

/** An attempt just recorded on its delivery: `id` is the delivery's. */
export type RecordedAttempt = Pick<
  Selectable<WebhookDeliveryAttempts>,
  'series' | 'trigger' | 'attempt' | 'status_code' | 'latency_ms' | 'error'
> & { id: string; delivery_created_at: Date };

/** Logs one attempt row per row of `recorded`, a relation named `r`. */
export function logAttempts(recorded: AliasedExpression<RecordedAttempt, 'r'>) {
  return db
    .insertInto('webhook_delivery_attempts')
    .columns([
      'delivery_id',
      'delivery_created_at',
      'series',
      'trigger',
      'attempt',
      'status_code',
      'latency_ms',
      'error',
    ])
    .expression((eb) =>
      eb
        .selectFrom(recorded)
        .select([
          'r.id',
          'r.delivery_created_at',
          'r.series',
          'r.trigger',
          'r.attempt',
          'r.status_code',
          'r.latency_ms',
          'r.error',
        ]),
    );
}

/** A delivery's attempts, oldest series and attempt first. */
export async function attemptsOf(on: SqlTarget, deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
  const rows = await executeAll(
    on,
    db
      .selectFrom('webhook_delivery_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('series')
      .orderBy('attempt'),
  );
  return rows.map((row) =>
    Object.assign(new WebhookDeliveryAttempt(), {
      id: row.id,
      deliveryId: row.delivery_id,
      deliveryCreatedAt: row.delivery_created_at,
      series: row.series,
      trigger: row.trigger,
      attempt: row.attempt,
      statusCode: row.status_code,
      latencyMs: row.latency_ms,
      error: row.error,
      createdAt: row.created_at,
    }),
  );
}
