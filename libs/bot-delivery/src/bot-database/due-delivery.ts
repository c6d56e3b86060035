import { MAX_DELIVERY_ATTEMPTS, type DeliverJobData } from '../queue';
import type { LoadedDeliveryRow } from './webhook-deliveries.store';

/** The body a webhook receives: the native Update, or Telegram's (set through the Telegram face). */
export type WebhookFormat = 'native' | 'telegram';

/** What one job needs: the delivery, its Update and the bot's current webhook configuration. */
export interface DueDelivery {
  id: string;
  botId: string;
  updateId: string;
  /** The bot's increasing Update number: Telegram's update_id. */
  updateSeq: number;
  format: WebhookFormat;
  series: number;
  attempts: number;
  payload: Record<string, unknown>;
  url: string;
  secretCiphertext: string;
  /** The secret a rotation replaced, while its overlap lasts. */
  previousSecretCiphertext: string | null;
  /** A Retry-After of the bot's receiver that is still running: no attempt before it. */
  notBefore: Date | null;
  allowedIps: string[] | null;
  maxConnections: number;
}

/** Why a delivery job ended without an attempt; each is a series of bot_webhook_jobs_skipped_total from the start. */
export const SKIP_REASONS = ['gone', 'finished', 'superseded', 'not_webhook', 'bot_unavailable', 'paused'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** The outcome of one POST. */
export interface AttemptResult {
  ok: boolean;
  /** Null when no response arrived (refused address, connection error, timeout). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** What a 429 or 503 asked for with Retry-After, in milliseconds from now; absent otherwise. */
  retryAfterMs?: number;
}

export const ATTEMPT_OUTCOMES = ['succeeded', 'retrying', 'dead_letter'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface AttemptRecord {
  delivery: Pick<DueDelivery, 'id' | 'series'>;
  attempt: number;
  result: AttemptResult;
  outcome: AttemptOutcome;
  retryDelayMs: number;
}

/** What a job finds: its delivery, ready to POST, or why there is nothing to do. */
export function dueOrSkipped(job: DeliverJobData, row: LoadedDeliveryRow | undefined): DueDelivery | SkipReason {
  if (!row) return 'gone';
  if (row.series !== job.series) return 'superseded';
  if (row.status !== 'pending' && row.status !== 'retrying') return 'finished';
  if (row.attempts >= MAX_DELIVERY_ATTEMPTS) return 'finished';
  if (row.delivery_mode !== 'webhook' || !row.webhook_url || !row.webhook_secret_ciphertext) return 'not_webhook';
  if (!row.available) return 'bot_unavailable';
  if (row.paused) return 'paused';
  return {
    id: row.id,
    botId: row.bot_id,
    updateId: row.update_id,
    updateSeq: Number(row.update_seq),
    format: row.webhook_format,
    series: row.series,
    attempts: row.attempts,
    payload: row.payload as Record<string, unknown>,
    url: row.webhook_url,
    secretCiphertext: row.webhook_secret_ciphertext,
    previousSecretCiphertext: row.webhook_previous_secret_ciphertext ?? null,
    notBefore: row.webhook_not_before ?? null,
    allowedIps: row.webhook_allowed_ips,
    maxConnections: row.webhook_max_connections,
  };
}
