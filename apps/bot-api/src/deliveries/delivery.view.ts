import type { DeliveryStatus, WebhookDelivery, WebhookDeliveryAttempt } from '@app/webhook-queue';

/** A delivery record of spec 2.4 plus what a console needs to judge it. */
export interface DeliveryView {
  update_id: string;
  update_type: string;
  status: DeliveryStatus;
  /** Attempts of the current series (a manual redelivery starts a new series). */
  attempts: number;
  series: number;
  dead_letter_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: string | null;
  succeeded_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptView {
  series: number;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  attempted_at: string;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export function deliveryView(delivery: WebhookDelivery): DeliveryView {
  const open = delivery.status === 'pending' || delivery.status === 'retrying';
  return {
    update_id: delivery.updateId,
    update_type: delivery.updateType,
    status: delivery.status,
    attempts: delivery.attempts,
    series: delivery.series,
    dead_letter_at: iso(delivery.deadLetterAt),
    last_error: delivery.lastError,
    last_status_code: delivery.lastStatusCode,
    next_attempt_at: open ? iso(delivery.nextAttemptAt) : null,
    succeeded_at: iso(delivery.succeededAt),
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
}

export function attemptView(attempt: WebhookDeliveryAttempt): AttemptView {
  return {
    series: attempt.series,
    attempt: attempt.attempt,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    attempted_at: attempt.createdAt.toISOString(),
  };
}
