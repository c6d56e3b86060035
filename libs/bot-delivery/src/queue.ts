import type { CoordinationBackend } from '@app/platform';
import type { DefaultJobOptions, JobsOptions } from 'bullmq';

/** The one queue between bot-api (producer) and bot-dispatcher (consumer). */
export const WEBHOOK_QUEUE = 'webhook-deliveries';

/** Every job name of the queue; the dispatcher refuses to start unless each has a handler. */
export const WEBHOOK_JOBS = {
  /** POST one Update to the bot's webhook (one attempt per run, retried by the queue). */
  deliver: 'deliver',
} as const;

export type WebhookJobName = (typeof WEBHOOK_JOBS)[keyof typeof WEBHOOK_JOBS];
export const WEBHOOK_JOB_NAMES: readonly WebhookJobName[] = Object.values(WEBHOOK_JOBS);

/** Attempts of one series in total: the first plus one per retry delay (spec 3.4). */
export const MAX_DELIVERY_ATTEMPTS = 5;

export interface DeliverJobData {
  deliveryId: string;
  /** The attempt series; a manual redelivery starts a new one, and jobs of an older series are skipped. */
  series: number;
  /** Attempts of this series already recorded when the job was enqueued (non-zero when the sweeper re-enqueues). */
  priorAttempts: number;
  /**
   * The delivery's bot: a replica where that bot is at its limit puts the job back without loading
   * the delivery first. Absent in jobs of an older producer, which are loaded as before.
   */
  botId?: string;
  /**
   * When the delivery was made (ISO 8601): the day partition it lies in, so the dispatcher reads it from
   * that day alone. Absent in jobs of an older producer, which are read from every day.
   */
  createdAt?: string;
}

/** A delivery row as a job: its series, the attempts of that series already made, its bot and its day. */
export function deliverJobFor(row: {
  id: string;
  series: number;
  attempts?: number;
  bot_id?: string;
  created_at?: Date;
}): DeliverJobData {
  const job: DeliverJobData = { deliveryId: row.id, series: Number(row.series), priorAttempts: row.attempts ?? 0 };
  if (row.bot_id) job.botId = row.bot_id;
  if (row.created_at) job.createdAt = row.created_at.toISOString();
  return job;
}

/**
 * One job per (delivery, series): enqueueing twice (after commit and from the sweeper, or from two
 * dispatcher replicas) is a no-op while the job exists. BullMQ refuses ':' in custom ids.
 */
export function deliverJobId(deliveryId: string, series: number): string {
  return `delivery-${deliveryId}-s${series}`;
}

/** Finished jobs are kept only as a short trace; PostgreSQL is the delivery log. */
export const WEBHOOK_DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  removeOnComplete: { count: 1000, age: 3600 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
};

/**
 * The retention of the queue's finished jobs on each backend, set as the queue's default job options.
 * On Redis a completed job stays as a trace (the last 1 000 of the past hour); trimming to that count
 * is one sorted-set command. BullMQ's PostgreSQL backend trims to a count with a DELETE that reads every
 * kept job of the queue, on every completion: about a thousand rows per delivery, the largest part of
 * the drain's database work. There a completed job is deleted as it completes. Nothing relies on the
 * trace: a delivery's outcome is its row, and the sweeper replaces a finished job of an open row anyway.
 */
export function webhookJobRetention(backend: CoordinationBackend): DefaultJobOptions {
  return backend === 'postgres'
    ? { ...WEBHOOK_DEFAULT_JOB_OPTIONS, removeOnComplete: true }
    : WEBHOOK_DEFAULT_JOB_OPTIONS;
}

/** A job's own options; its retention is the queue's default (webhookJobRetention). */
export function deliverJobOptions(data: DeliverJobData, delayMs = 0): JobsOptions {
  return {
    jobId: deliverJobId(data.deliveryId, data.series),
    attempts: Math.max(1, MAX_DELIVERY_ATTEMPTS - data.priorAttempts),
    // The processor decides each delay from the delivery's own attempt count (see RetryLaterError).
    backoff: { type: 'delivery-schedule' },
    delay: delayMs,
  };
}

/** Thrown by the processor after a failed attempt that will be retried; carries the delay of the schedule. */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

/** Worker setting: the retry delay comes from the failed attempt itself. */
export function deliveryBackoff(_attemptsMade: number, _type?: string, error?: Error): number {
  // An unexpected failure (database unreachable) is retried after a pause rather than at once.
  return error instanceof RetryLaterError ? error.delayMs : 5000;
}
