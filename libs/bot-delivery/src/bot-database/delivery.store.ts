import { Database, execute, executeAll, executeFirst, isUuid, RowOf, SqlTarget } from '@app/platform';
import { WebhookDeliveryAttempt } from '../entities/webhook-delivery-attempt.entity';
import { DeliveryStatus, WebhookDelivery, WEBHOOK_DELIVER_FAILED } from '../entities/webhook-delivery.entity';
import { DeliverJobData, MAX_DELIVERY_ATTEMPTS } from '../queue';
import { createdWithin } from './created-within';
import { AttemptRecord, DueDelivery, dueOrSkipped, SkipReason } from './due-delivery';
import { COUNT_WAITING_UPDATES } from './updates.store';
import { attemptsOf } from './webhook-delivery-attempts.store';
import * as deliveries from './webhook-deliveries.store';
import type { OpenedDelivery } from './webhook-deliveries.store';

export type { OpenedDelivery } from './webhook-deliveries.store';

/** A run of this many consecutive 410 Gone answers pauses a bot's deliveries unless the caller says otherwise. */
export const DEFAULT_GONE_PAUSE_AFTER = 3;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Webhook deliveries and their attempts, for bot-api and bot-dispatcher alike. It runs the statements
 * of webhook-deliveries.store.ts and webhook-delivery-attempts.store.ts and holds no SQL of its own;
 * both processes run those statements and no others on those tables, so a change to them is one change.
 */
export class DeliveryStore {
  constructor(private readonly database: Database) {}

  /** A bot just switched to webhook mode: a delivery for each Update it has not confirmed yet. */
  deliverBacklog(on: SqlTarget, botId: string, retentionHours: number): Promise<OpenedDelivery[]> {
    return executeAll(on, deliveries.DELIVER_BACKLOG(botId, retentionHours));
  }

  /** Open deliveries are deleted; their Updates stay unconfirmed for getUpdates. */
  async withdrawOpen(on: SqlTarget, botId: string): Promise<void> {
    await execute(on, deliveries.WITHDRAW_OPEN(botId));
  }

  /** getWebhookInfo's pending_update_count: open deliveries in webhook mode, else Updates not confirmed. */
  async pendingCount(botId: string, webhook: boolean, retentionHours: number): Promise<number> {
    const row = webhook
      ? await executeFirst(this.database, deliveries.COUNT_OPEN(botId))
      : await executeFirst(this.database, COUNT_WAITING_UPDATES(botId, retentionHours));
    return Number(row?.count);
  }

  /** How many of the bot's deliveries are pending, retrying and dead letters. */
  async backlog(botId: string): Promise<{ pending: number; retrying: number; dead_letter: number }> {
    const rows = await executeAll(this.database, deliveries.DELIVERY_BACKLOG(botId));
    const of = (status: string) => rows.find((row) => row.status === status)?.count ?? 0;
    return { pending: of('pending'), retrying: of('retrying'), dead_letter: of('dead_letter') };
  }

  /** Open deliveries (pending or retrying) of the `limit` bots with the most, largest first. */
  openBacklogByBot(limit: number): Promise<Array<{ bot_id: string; open: number }>> {
    return executeAll(this.database, deliveries.OPEN_BACKLOG_BY_BOT(limit));
  }

  /** A page of one of the owner's bots' delivery log, newest first; null when the bot is not theirs. */
  async page(
    ownerId: string,
    botId: string,
    status: DeliveryStatus | null,
    limit: number,
    offset: number,
  ): Promise<WebhookDelivery[] | null> {
    const rows = await deliveries.DELIVERY_PAGE.all(this.database, { botId, ownerId, status, limit, offset });
    if (rows.length === 0) return null;
    return rows.flatMap((row) => (row.update_id === null ? [] : [deliveryOf(row)]));
  }

  async count(botId: string, status: DeliveryStatus | null): Promise<number> {
    const row =
      status === null
        ? await deliveries.DELIVERY_COUNT.first(this.database, { botId })
        : await deliveries.DELIVERY_COUNT_IN_STATUS.first(this.database, { botId, status });
    return Number(row?.total);
  }

  /** One of the bot's deliveries by its Update's id, in the caller's transaction. */
  async findByUpdateId(on: SqlTarget, botId: string, updateId: string): Promise<WebhookDelivery | null> {
    if (!isUuid(updateId)) return null;
    const row = await executeFirst(
      on,
      deliveries.selectDelivery().where('bot_id', '=', botId).where('update_id', '=', updateId.toLowerCase()).limit(1),
    );
    return row ? webhookDeliveryOf(row) : null;
  }

  /** The delivery with this id; it must exist. */
  async findById(on: SqlTarget, id: string): Promise<WebhookDelivery> {
    const row = await executeFirst(on, deliveries.selectDelivery().where('id', '=', id).limit(1));
    if (!row) throw new Error(`webhook delivery ${id} not found`);
    return webhookDeliveryOf(row);
  }

  attempts(deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
    return attemptsOf(this.database, deliveryId);
  }

  /** A finished delivery (dead letter or succeeded) starts a new series by the developer; nothing when it is still open. */
  restartFinished(on: SqlTarget, deliveryId: string): Promise<OpenedDelivery[]> {
    return executeAll(on, deliveries.RESTART_FINISHED(deliveryId));
  }

  /** Every dead letter of the bot, optionally within a dead_letter_at range [since, until), starts a new series. */
  restartDeadLetters(
    on: SqlTarget,
    botId: string,
    since: string | null,
    until: string | null,
  ): Promise<OpenedDelivery[]> {
    return executeAll(on, deliveries.RESTART_DEAD_LETTERS(botId, since, until));
  }

  /** What each job finds, in order: its due delivery, or why it has nothing to do. One statement for all. */
  async loadMany(jobs: readonly DeliverJobData[]): Promise<Array<DueDelivery | SkipReason>> {
    // A malformed id (a job not written by bot-api) must not fail the statement of the whole batch.
    const ids = [...new Set(jobs.map((job) => job.deliveryId).filter(isUuid))];
    const days = createdWithin(jobs.map((job) => job.createdAt));
    const rows = ids.length > 0 ? await deliveries.LOAD_DELIVERIES.all(this.database, { ids, ...days }) : [];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return jobs.map((job) => dueOrSkipped(job, byId.get(job.deliveryId.toLowerCase())));
  }

  /**
   * Records attempts and moves their deliveries on, all in one statement. Returns, per record and in
   * the same order, whether it was recorded (false: superseded by a redelivery, a deleteWebhook or a
   * duplicate run of the job).
   */
  async recordMany(
    records: readonly AttemptRecord[],
    pauseAfterGone: number = DEFAULT_GONE_PAUSE_AFTER,
  ): Promise<boolean[]> {
    // Inputs in delivery id order in every replica, so concurrent batches lock rows in one order (the
    // recorder retries the rare deadlock that remains, e.g. with a transaction of bot-api).
    const order = records
      .map((_, index) => index)
      .sort((a, b) => compare(records[a].delivery.id, records[b].delivery.id));
    const column = <T>(pick: (record: AttemptRecord) => T): T[] => order.map((index) => pick(records[index]));
    const rows = await deliveries.RECORD_ATTEMPTS.all(this.database, {
      arrivals: order,
      ids: column((r) => r.delivery.id),
      series: column((r) => r.delivery.series),
      attempts: column((r) => r.attempt),
      statuses: column((r) => r.outcome),
      last_errors: column((r) => (r.outcome === 'dead_letter' ? deadLetterReason(r) : r.result.error)),
      status_codes: column((r) => r.result.statusCode),
      retry_delays_ms: column((r) => r.retryDelayMs),
      latencies_ms: column((r) => r.result.latencyMs),
      errors: column((r) => r.result.error),
      retry_afters_ms: column((r) => r.result.retryAfterMs ?? null),
      pause_after_gone: pauseAfterGone,
    });
    const recorded = new Array<boolean>(records.length).fill(false);
    for (const row of rows) recorded[row.arrival] = true;
    return recorded;
  }

  /** Open deliveries of available webhook bots past their due time by more than the grace. */
  overdue(graceMs: number, limit: number): Promise<Array<OpenedDelivery & { attempts: number }>> {
    return executeAll(this.database, deliveries.OVERDUE(graceMs, limit));
  }

  /** Gives a delivery to each Update of a webhook bot that lacks one past the grace (see ADOPT_ORPHANS). */
  adoptOrphans(graceMs: number, limit: number): Promise<OpenedDelivery[]> {
    return executeAll(this.database, deliveries.ADOPT_ORPHANS(graceMs, limit));
  }
}

/** Why a delivery became a dead letter, as the console and getWebhookInfo show it. */
function deadLetterReason(record: AttemptRecord): string {
  if (record.result.statusCode === 410) {
    return `${WEBHOOK_DELIVER_FAILED}: the receiver answered 410 Gone on attempt ${record.attempt}; not retried`;
  }
  return `${WEBHOOK_DELIVER_FAILED}: ${MAX_DELIVERY_ATTEMPTS} attempts failed; last: ${record.result.error}`;
}

/** A row of the developer's delivery log that has a delivery. */
type DeliveryPageRow = RowOf<typeof deliveries.DELIVERY_PAGE>;

function deliveryOf(row: DeliveryPageRow): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    updateId: row.update_id,
    updateType: row.update_type,
    status: row.status,
    attempts: row.attempts,
    series: row.series,
    trigger: row.trigger,
    deadLetterAt: row.dead_letter_at,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    nextAttemptAt: row.next_attempt_at,
    succeededAt: row.succeeded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

function webhookDeliveryOf(row: RowOf<ReturnType<typeof deliveries.selectDelivery>>): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: row.id,
    botId: row.bot_id,
    updateSeq: Number(row.update_seq),
    updateId: row.update_id,
    updateType: row.update_type,
    status: row.status,
    series: row.series,
    trigger: row.trigger,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    succeededAt: row.succeeded_at,
    deadLetterAt: row.dead_letter_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}
