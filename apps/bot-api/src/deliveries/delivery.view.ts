import { ApiProperty } from '@nestjs/swagger';
import {
  DELIVERY_STATUSES,
  DELIVERY_TRIGGERS,
  DeliveryStatus,
  DeliveryTrigger,
  WebhookDelivery,
  WebhookDeliveryAttempt,
} from '@app/bot-delivery';
import { PageOf } from '@app/platform';
import { UPDATE_TYPES } from '../update-types';

export const TRIGGER_DESCRIPTION =
  'How the current attempt series was started: first_attempt (the Update itself), manual (a redelivery by the ' +
  "bot's developer), staff (a redelivery by platform staff, one or in bulk), auto (self-healing: the receiver " +
  'recovered and the dead letter was redelivered automatically)';

/** A delivery record of spec 2.4 plus what a console needs to judge it. */
export class DeliveryView {
  @ApiProperty({ format: 'uuid' })
  update_id: string;

  @ApiProperty({ enum: UPDATE_TYPES })
  update_type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;

  @ApiProperty({
    type: 'integer',
    description: 'Attempts of the current series (a manual redelivery starts a new one)',
  })
  attempts: number;

  @ApiProperty({ type: 'integer' })
  series: number;

  @ApiProperty({ enum: DELIVERY_TRIGGERS, description: TRIGGER_DESCRIPTION })
  trigger: DeliveryTrigger;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  dead_letter_at: string | null;

  @ApiProperty({ type: String, nullable: true })
  last_error: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last attempt' })
  last_status_code: number | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Only while pending or retrying' })
  next_attempt_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  succeeded_at: string | null;

  @ApiProperty({
    format: 'date-time',
    description: "Its Update's time: a delivery given to an earlier Update (setWebhook's backlog) carries that Update's",
  })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class AttemptView {
  @ApiProperty({ type: 'integer' })
  series: number;

  @ApiProperty({ enum: DELIVERY_TRIGGERS, description: "How the attempt's series was started" })
  trigger: DeliveryTrigger;

  @ApiProperty({ type: 'integer' })
  attempt: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null when no HTTP answer came' })
  status_code: number | null;

  @ApiProperty({ type: 'integer' })
  latency_ms: number;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ format: 'date-time' })
  attempted_at: string;
}

/** One attempt series of a delivery: which way it was started and how many attempts it made. */
export class AttemptSeriesView {
  @ApiProperty({ type: 'integer' })
  series: number;

  @ApiProperty({ enum: DELIVERY_TRIGGERS, description: TRIGGER_DESCRIPTION.replace('current ', '') })
  trigger: DeliveryTrigger;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts: number;
}

export class DeliveryDetailView extends DeliveryView {
  @ApiProperty({ type: [AttemptView], description: 'Every attempt, oldest first' })
  attempt_log: AttemptView[];

  @ApiProperty({
    type: [AttemptSeriesView],
    description: 'Every attempt series still in the log, oldest first, the current one included',
  })
  series_log: AttemptSeriesView[];
}

export class DeliveryPage extends PageOf(DeliveryView) {}

export class RedeliveredView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Dead letters sent out again' })
  redelivered: number;
}

export class DeliveryBacklogView {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Not attempted yet in their current series' })
  pending: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Failed at least once, waiting for their next attempt' })
  retrying: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Dead letters still kept (redeliverable)' })
  dead_letter: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'pending + retrying + dead_letter' })
  total: number;
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
    trigger: delivery.trigger,
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
    trigger: attempt.trigger,
    attempt: attempt.attempt,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    attempted_at: attempt.createdAt.toISOString(),
  };
}

/** The series of a delivery from its attempts, plus its current series when that has made no attempt yet. */
export function seriesLog(
  current: { series: number; trigger: DeliveryTrigger },
  attempts: readonly WebhookDeliveryAttempt[],
): AttemptSeriesView[] {
  const bySeries = new Map<number, AttemptSeriesView>();
  for (const attempt of attempts) {
    const entry = bySeries.get(attempt.series) ?? { series: attempt.series, trigger: attempt.trigger, attempts: 0 };
    entry.attempts++;
    bySeries.set(attempt.series, entry);
  }
  if (!bySeries.has(current.series)) {
    bySeries.set(current.series, { series: current.series, trigger: current.trigger, attempts: 0 });
  }
  return [...bySeries.values()].sort((a, b) => a.series - b.series);
}
