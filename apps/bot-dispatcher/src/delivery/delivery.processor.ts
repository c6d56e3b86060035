import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { SecretCipher } from '@app/auth';
import {
  AttemptOutcome,
  DeliverJobData,
  DeliveryStore,
  DueDelivery,
  MAX_DELIVERY_ATTEMPTS,
  RetryLaterError,
  SkipReason,
  webhookSecretContext,
} from '@app/webhook-queue';
import { NativeUpdate, toTelegramUpdate, withAliases } from '@app/telegram-shapes';
import { DelayedError, type Job } from 'bullmq';
import { readFileSync } from 'node:fs';
import { DispatcherConfig } from '../config/dispatcher.config';
import { AttemptRecorder } from './attempt-recorder';
import { BatchQueue } from './batch-queue';
import { BotSlots, replicaSlots } from './bot-slots';
import { DeliveryMetrics } from './delivery.metrics';
import { SendResult, WebhookSender } from './webhook-sender';

/** How long a job waits when its bot is at its limit (max_connections or fair share) on this replica. */
const BUSY_RETRY_MS = 250;
/**
 * A job put back again and again waits longer each time, up to this: a bot with hundreds of jobs behind
 * a receiver that never answers would otherwise have each of them load and requeue four times a second,
 * a churn of queries that every other bot's deliveries wait behind.
 */
const BUSY_RETRY_MAX_MS = 2000;
/** Opened webhook secrets kept, keyed by their ciphertext, so a changed secret is never served stale. */
const MAX_OPENED_SECRETS = 1000;

export type DeliverResult = { outcome: AttemptOutcome } | { skipped: SkipReason };

/**
 * One run of a `deliver` job is one attempt. Success and the final failure end the job; any other
 * failure is recorded as `retrying` and thrown, so the queue runs the job again after the delay of
 * the schedule (carried by RetryLaterError).
 */
@Injectable()
export class DeliveryProcessor implements OnModuleDestroy {
  private readonly cipher: SecretCipher;
  private readonly slots: BotSlots;
  private readonly secrets = new Map<string, string>();
  /** Jobs that start while a load is running share the next one. */
  private readonly loads: BatchQueue<DeliverJobData, DueDelivery | SkipReason>;
  readonly sender: WebhookSender;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly store: DeliveryStore,
    private readonly recorder: AttemptRecorder,
    private readonly metrics: DeliveryMetrics,
  ) {
    this.cipher = new SecretCipher(config.WEBHOOK_SECRET_KEY);
    this.slots = replicaSlots(config.WEBHOOK_WORKER_CONCURRENCY, config.WEBHOOK_BOT_SHARE_PERCENT);
    metrics.observeBots({
      inFlight: () => this.slots.entries(),
      queueDepth: async () => {
        const limit = config.METRICS_BACKLOG_BOTS;
        const rows = limit > 0 ? await store.openBacklogByBot(limit) : [];
        return rows.map((row): [string, number] => [row.bot_id, row.open]);
      },
    });
    this.loads = new BatchQueue((jobs) => this.store.loadMany(jobs), {
      maxBatch: config.WEBHOOK_WORKER_CONCURRENCY,
      windowMs: 0,
    });
    this.sender = new WebhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      ca: config.WEBHOOK_CA_FILE ? readFileSync(config.WEBHOOK_CA_FILE, 'utf8') : undefined,
      maxAgents: config.WEBHOOK_MAX_AGENTS,
      dnsTimeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS,
    });
  }

  async deliver(job: Job<DeliverJobData>, token?: string): Promise<DeliverResult> {
    const delivery = await this.loads.push(job.data);
    if (typeof delivery === 'string') {
      this.metrics.skipped.inc({ reason: delivery });
      return { skipped: delivery };
    }
    if (delivery.notBefore && delivery.notBefore.getTime() > Date.now()) {
      // The receiver asked for a pause (Retry-After): not an attempt, back to the queue until it ends.
      this.metrics.deferred.inc();
      await job.moveToDelayed(delivery.notBefore.getTime() + Math.floor(Math.random() * BUSY_RETRY_MS), token);
      throw new DelayedError();
    }
    if (!this.slots.tryAcquire(delivery.botId, delivery.maxConnections)) {
      // Not an attempt: back to the queue shortly, freeing this worker slot for other bots.
      this.metrics.deferred.inc();
      const wait = busyRetryDelayMs(job);
      await job.moveToDelayed(Date.now() + wait + Math.floor(Math.random() * wait), token);
      throw new DelayedError();
    }
    let result: SendResult;
    try {
      result = await this.post(delivery);
    } finally {
      // The slot bounds open POSTs; waiting for the outcome's batch must not keep the bot's next delivery out.
      this.slots.release(delivery.botId);
    }
    return this.record(delivery, result);
  }

  private async post(delivery: DueDelivery): Promise<SendResult> {
    const secret = this.open(delivery.botId, delivery.secretCiphertext);
    const previousSecret = delivery.previousSecretCiphertext
      ? this.open(delivery.botId, delivery.previousSecretCiphertext)
      : undefined;
    // These exact bytes are signed and sent.
    const rawBody = await this.bodyOf(delivery);
    // A Telegram-format webhook has no body for Update types Telegram lacks (receipts, deletions,
    // friend requests): nothing to send, so the delivery is done as if the receiver had taken it.
    if (rawBody === null) return { ok: true, statusCode: null, latencyMs: 0, error: null };
    return this.sender.send(
      {
        botId: delivery.botId,
        url: delivery.url,
        secret,
        previousSecret,
        allowedIps: delivery.allowedIps,
        maxConnections: delivery.maxConnections,
        formatHeaders: delivery.format === 'telegram' ? { 'X-Telegram-Bot-Api-Secret-Token': secret } : undefined,
      },
      rawBody,
      delivery.updateId,
    );
  }

  /** The native Update as stored, or Telegram's Update (update_id = update_seq, integer ids). */
  private async bodyOf(delivery: DueDelivery): Promise<Buffer | null> {
    if (delivery.format !== 'telegram') return Buffer.from(JSON.stringify(delivery.payload), 'utf8');
    const native = { ...delivery.payload, update_seq: delivery.updateSeq } as unknown as NativeUpdate;
    const update = await withAliases(
      (ids) => toTelegramUpdate(native, ids),
      (wanted) => this.store.telegramAliases(wanted),
    );
    return update === null ? null : Buffer.from(JSON.stringify(update), 'utf8');
  }

  private async record(delivery: DueDelivery, result: SendResult): Promise<DeliverResult> {
    const attempt = delivery.attempts + 1;
    this.metrics.latency.observe(result.latencyMs / 1000);
    // 410 Gone: the receiver says this will never work, so no retry.
    const outcome: AttemptOutcome = result.ok
      ? 'succeeded'
      : attempt >= MAX_DELIVERY_ATTEMPTS || result.statusCode === 410
        ? 'dead_letter'
        : 'retrying';
    if (result.retryAfterMs !== undefined) {
      result = { ...result, retryAfterMs: Math.min(result.retryAfterMs, this.config.WEBHOOK_RETRY_AFTER_MAX_MS) };
    }
    const retryDelayMs =
      outcome === 'retrying' ? retryDelayOf(this.config.DELIVERY_RETRY_DELAYS_MS[attempt - 1], result.retryAfterMs) : 0;
    const recorded = await this.recorder.record({ delivery, attempt, result, outcome, retryDelayMs });
    if (!recorded) {
      this.metrics.skipped.inc({ reason: 'superseded' });
      return { skipped: 'superseded' };
    }
    this.metrics.attempts.inc({ outcome });
    if (outcome === 'retrying') throw new RetryLaterError(result.error ?? 'delivery failed', retryDelayMs);
    return { outcome };
  }

  private open(botId: string, ciphertext: string): string {
    const key = `${botId} ${ciphertext}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = this.cipher.decrypt(webhookSecretContext(botId), ciphertext);
      if (this.secrets.size >= MAX_OPENED_SECRETS) this.secrets.delete(this.secrets.keys().next().value as string);
      this.secrets.set(key, secret);
    }
    return secret;
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }
}

/** Each start of the job that was neither an attempt nor the current one was a deferral (see BotSlots). */
export function busyRetryDelayMs(job: Pick<Job, 'attemptsStarted' | 'attemptsMade'>): number {
  const deferrals = Math.max(0, job.attemptsStarted - job.attemptsMade - 1);
  return Math.min(BUSY_RETRY_MS * 2 ** Math.min(deferrals, 10), BUSY_RETRY_MAX_MS);
}

/** A receiver's Retry-After (already capped) may push a retry later than the schedule, never earlier. */
export function retryDelayOf(scheduledMs: number, retryAfterMs: number | undefined): number {
  return Math.max(scheduledMs, retryAfterMs ?? 0);
}
