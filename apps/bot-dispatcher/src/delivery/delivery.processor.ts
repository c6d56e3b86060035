import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { SecretCipher } from '@app/auth';
import {
  AttemptOutcome,
  DeliverJobData,
  DeliveryDomain,
  DueDelivery,
  MAX_DELIVERY_ATTEMPTS,
  RetryLaterError,
  SkipReason,
  webhookSecretContext,
} from '@app/bot-delivery';
import { NativeUpdate, toTelegramUpdate, withAliases } from '@app/telegram-shapes';
import { annotateSpan, tracingActive } from '@app/telemetry';
import { DelayedError, type Job } from 'bullmq';
import { LRUCache } from 'lru-cache';
import { readFileSync } from 'node:fs';
import { DispatcherConfig } from '../config/dispatcher.config';
import { AttemptRecorder } from './attempt-recorder';
import { BatchQueue } from './batch-queue';
import { BotSlots, replicaSlots } from './bot-slots';
import { DeferralPacer } from './deferral-pacer';
import { DeliveryMetrics } from './delivery.metrics';
import { SendResult, WebhookSender } from './webhook-sender';

/** The shortest wait of a job whose bot is at its limit (max_connections or fair share) on this replica. */
const BUSY_RETRY_MIN_MS = 50;
/** Jitter of a Retry-After pause, so that a bot's jobs do not all come back at once. */
const RETRY_AFTER_JITTER_MS = 250;
/**
 * How long a bot's POST is assumed to hold its slot until one of them has ended (see DeferralPacer).
 * Short: the jobs a fresh bot defers in its first moments are booked this far apart per slot, so a
 * backlog queued before the first answer comes back within about a second (a queue of 10 000 drained
 * at the baseline's pace), while a receiver that never answers costs at most one look per this interval
 * per slot until its first timeout shows how long it holds them.
 */
const INITIAL_HOLD_MAX_MS = 50;
/** Bots whose max_connections are remembered, to put back a job of a full bot without loading it. */
const MAX_KNOWN_LIMITS = 10_000;
/**
 * A bot may borrow slots beyond its fair share only once its POSTs are seen to hold their slot at
 * most this long on average (and at most half the timeout): a receiver that answers promptly drains a
 * backlog faster with more connections, a slow or silent one only ties up more of them (see BotSlots).
 * Until its first POST ended, a bot has its fair share, which a prompt receiver ends within moments.
 */
const BORROW_MAX_HOLD_MS = 1000;
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
  private readonly secrets = new LRUCache<string, string>({ max: MAX_OPENED_SECRETS });
  private readonly pacer: DeferralPacer;
  /** max_connections of the bots whose deliveries this replica loaded lately. */
  private readonly limits = new LRUCache<string, number>({ max: MAX_KNOWN_LIMITS });
  private readonly borrowMaxHoldMs: number;
  /** Jobs that start while a load is running share the next one. */
  private readonly loads: BatchQueue<DeliverJobData, DueDelivery | SkipReason>;
  readonly sender: WebhookSender;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly delivery: DeliveryDomain,
    private readonly recorder: AttemptRecorder,
    private readonly metrics: DeliveryMetrics,
  ) {
    this.cipher = new SecretCipher(config.WEBHOOK_SECRET_KEY);
    this.slots = replicaSlots(config.WEBHOOK_WORKER_CONCURRENCY, config.WEBHOOK_BOT_SHARE_PERCENT);
    this.borrowMaxHoldMs = Math.min(BORROW_MAX_HOLD_MS, config.WEBHOOK_TIMEOUT_MS / 2);
    this.pacer = new DeferralPacer({
      minDelayMs: BUSY_RETRY_MIN_MS,
      // A backlog behind a receiver that never answers comes back within ten timeouts at the latest:
      // each job is looked at about once in that time, however long the backlog grows.
      maxDelayMs: Math.max(2000, 10 * config.WEBHOOK_TIMEOUT_MS),
      initialHoldMs: Math.min(INITIAL_HOLD_MAX_MS, config.WEBHOOK_TIMEOUT_MS),
    });
    metrics.observeBots({
      inFlight: () => this.slots.entries(),
      queueDepth: async () => {
        const limit = config.METRICS_BACKLOG_BOTS;
        const rows = limit > 0 ? await delivery.openBacklogByBot(limit) : [];
        return {
          depths: rows.map((row): [string, number] => [row.bot_id, row.open]),
          // Fewer bots than asked for: no other bot has an open delivery.
          complete: limit > 0 && rows.length < limit,
        };
      },
    });
    this.loads = new BatchQueue((jobs) => this.delivery.loadDue(jobs), {
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
    const botId = job.data.botId;
    const knownLimit = botId === undefined ? undefined : this.limits.get(botId);
    if (
      botId !== undefined &&
      knownLimit !== undefined &&
      !this.slots.canAcquire(botId, knownLimit, this.mayBorrow(botId))
    ) {
      // Its bot is full here: put back without a query, so that a flood costs no database round trip per look.
      return this.defer(job, token, botId);
    }
    const delivery = await this.loads.push(job.data);
    if (typeof delivery === 'string') {
      this.metrics.skipped.inc({ reason: delivery });
      return { skipped: delivery };
    }
    if (delivery.notBefore && delivery.notBefore.getTime() > Date.now()) {
      // The receiver asked for a pause (Retry-After): not an attempt, back to the queue until it ends.
      this.metrics.deferred.inc();
      await job.moveToDelayed(delivery.notBefore.getTime() + Math.floor(Math.random() * RETRY_AFTER_JITTER_MS), token);
      throw new DelayedError();
    }
    this.rememberLimit(delivery.botId, delivery.maxConnections);
    if (!this.slots.tryAcquire(delivery.botId, delivery.maxConnections, this.mayBorrow(delivery.botId))) {
      return this.defer(job, token, delivery.botId);
    }
    this.metrics.botBusy(delivery.botId);
    const started = Date.now();
    let result: SendResult;
    try {
      result = await this.post(delivery);
    } finally {
      // The slot bounds open POSTs; waiting for the outcome's batch must not keep the bot's next delivery out.
      this.slots.release(delivery.botId);
      this.pacer.observeHold(delivery.botId, Date.now() - started);
    }
    return this.record(delivery, result, job.timestamp);
  }

  /** Not an attempt: back to the queue when the bot is likely to have a slot, freeing this worker slot for other bots. */
  private async defer(job: Job<DeliverJobData>, token: string | undefined, botId: string): Promise<never> {
    this.metrics.deferred.inc();
    await job.moveToDelayed(Date.now() + this.pacer.delayFor(botId, this.slots.inFlight(botId)), token);
    throw new DelayedError();
  }

  private mayBorrow(botId: string): boolean {
    const hold = this.pacer.observedHoldOf(botId);
    return hold !== undefined && hold <= this.borrowMaxHoldMs;
  }

  private rememberLimit(botId: string, maxConnections: number): void {
    this.limits.set(botId, maxConnections);
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
      (wanted) => this.delivery.telegramAliasesOf(wanted),
    );
    return update === null ? null : Buffer.from(JSON.stringify(update), 'utf8');
  }

  /** `queuedAt`: when the job was added, the start of the delivery's lag. */
  private async record(delivery: DueDelivery, result: SendResult, queuedAt: number): Promise<DeliverResult> {
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
    if (outcome === 'succeeded' && attempt === 1) this.metrics.lag.observe(Math.max(0, Date.now() - queuedAt) / 1000);
    // The attempt's span (the queue job's run) says what came of it; nothing is built while tracing is off.
    if (tracingActive()) {
      annotateSpan({
        'webhook.delivery_id': delivery.id,
        'webhook.attempt': attempt,
        'webhook.outcome': outcome,
        ...(result.statusCode === null ? {} : { 'http.response.status_code': result.statusCode }),
      });
    }
    if (outcome === 'retrying') throw new RetryLaterError(result.error ?? 'delivery failed', retryDelayMs);
    return { outcome };
  }

  private open(botId: string, ciphertext: string): string {
    const key = `${botId} ${ciphertext}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = this.cipher.decrypt(webhookSecretContext(botId), ciphertext);
      this.secrets.set(key, secret);
    }
    return secret;
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }
}

/** A receiver's Retry-After (already capped) may push a retry later than the schedule, never earlier. */
export function retryDelayOf(scheduledMs: number, retryAfterMs: number | undefined): number {
  return Math.max(scheduledMs, retryAfterMs ?? 0);
}
