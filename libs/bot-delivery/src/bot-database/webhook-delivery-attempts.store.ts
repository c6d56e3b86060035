import { DataSource } from 'typeorm';
import { WebhookDeliveryAttempt } from '../entities/webhook-delivery-attempt.entity';

/**
 * Every statement on `webhook_delivery_attempts`, the log of each POST of a delivery. Attempts are
 * written only by the statement that records them on their deliveries (RECORD_ATTEMPTS of
 * webhook-deliveries.store.ts), which splices `logAttemptsSql`; DeliveryStore reads them.
 */

/**
 * Logs one attempt row per row of `recorded`, a relation with the columns id (the delivery), series,
 * trigger, attempt, status_code, latency_ms and error.
 */
export function logAttemptsSql(recorded: string): string {
  return `INSERT INTO webhook_delivery_attempts (delivery_id, series, "trigger", attempt, status_code, latency_ms, error)
     SELECT id, series, "trigger", attempt, status_code, latency_ms, error FROM ${recorded}`;
}

/** A delivery's attempts, oldest series and attempt first. */
export function attemptsOf(dataSource: DataSource, deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
  return dataSource.getRepository(WebhookDeliveryAttempt).find({
    where: { deliveryId },
    order: { series: 'ASC', attempt: 'ASC' },
  });
}
