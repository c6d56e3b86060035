import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { SecretCipher } from '@app/auth';
import { DeliverJobData, MAX_DELIVERY_ATTEMPTS, RetryLaterError, webhookSecretContext } from '@app/webhook-queue';
import { DelayedError, type Job } from 'bullmq';
import { readFileSync } from 'node:fs';
import { DispatcherConfig } from '../config/dispatcher.config';
import { AttemptRecorder } from './attempt-recorder';
import { BatchQueue } from './batch-queue';
import { BotSlots } from './bot-slots';
import { DeliveryMetrics } from './delivery.metrics';
import { AttemptOutcome, DeliveryStore, DueDelivery, SkipReason } from './delivery.store';
import { SendResult, WebhookSender } from './webhook-sender';

/** How long a job waits when its bot is at max_connections on this replica. */
const BUSY_RETRY_MS = 250;
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
  private readonly slots = new BotSlots();
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
    this.loads = new BatchQueue((jobs) => this.store.loadMany(jobs), {
      maxBatch: config.WEBHOOK_WORKER_CONCURRENCY,
      windowMs: 0,
    });
    this.sender = new WebhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      ca: config.WEBHOOK_CA_FILE ? readFileSync(config.WEBHOOK_CA_FILE, 'utf8') : undefined,
      maxAgents: config.WEBHOOK_MAX_AGENTS,
    });
  }

  async deliver(job: Job<DeliverJobData>, token?: string): Promise<DeliverResult> {
    const delivery = await this.loads.push(job.data);
    if (typeof delivery === 'string') {
      this.metrics.skipped.inc({ reason: delivery });
      return { skipped: delivery };
    }
    if (!this.slots.tryAcquire(delivery.botId, delivery.maxConnections)) {
      // Not an attempt: back to the queue shortly, freeing this worker slot for other bots.
      await job.moveToDelayed(Date.now() + BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS), token);
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

  private post(delivery: DueDelivery): Promise<SendResult> {
    const secret = this.secretOf(delivery);
    // These exact bytes are signed and sent.
    const rawBody = Buffer.from(JSON.stringify(delivery.payload), 'utf8');
    return this.sender.send(
      {
        botId: delivery.botId,
        url: delivery.url,
        secret,
        allowedIps: delivery.allowedIps,
        maxConnections: delivery.maxConnections,
      },
      rawBody,
      delivery.updateId,
    );
  }

  private async record(delivery: DueDelivery, result: SendResult): Promise<DeliverResult> {
    const attempt = delivery.attempts + 1;
    this.metrics.latency.observe(result.latencyMs / 1000);
    const outcome: AttemptOutcome = result.ok
      ? 'succeeded'
      : attempt >= MAX_DELIVERY_ATTEMPTS
        ? 'dead_letter'
        : 'retrying';
    const retryDelayMs = outcome === 'retrying' ? this.config.DELIVERY_RETRY_DELAYS_MS[attempt - 1] : 0;
    const recorded = await this.recorder.record({ delivery, attempt, result, outcome, retryDelayMs });
    if (!recorded) {
      this.metrics.skipped.inc({ reason: 'superseded' });
      return { skipped: 'superseded' };
    }
    this.metrics.attempts.inc({ outcome });
    if (outcome === 'retrying') throw new RetryLaterError(result.error ?? 'delivery failed', retryDelayMs);
    return { outcome };
  }

  private secretOf(delivery: DueDelivery): string {
    const key = `${delivery.botId} ${delivery.secretCiphertext}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = this.cipher.decrypt(webhookSecretContext(delivery.botId), delivery.secretCiphertext);
      if (this.secrets.size >= MAX_OPENED_SECRETS) this.secrets.delete(this.secrets.keys().next().value as string);
      this.secrets.set(key, secret);
    }
    return secret;
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }
}
