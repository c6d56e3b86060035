import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Database, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import { deliverJobFor, DeliveryStatus, DeliveryDomain, WebhookDelivery } from '@app/bot-delivery';
import { BotErrors } from '../bot-errors';
import { DeliveryQueue } from './delivery-queue';
import {
  DeliveryBacklogView,
  attemptView,
  DeliveryDetailView,
  DeliveryPage,
  deliveryView,
  DeliveryView,
  RedeliveredView,
  seriesLog,
} from './delivery.view';
import { BulkRedeliverDto, ListDeliveriesQueryDto } from './dto/deliveries.dto';

/**
 * Counting a long delivery log costs time in proportion to its length on every page view, so a
 * total at or above this is reused for TOTAL_REUSE_MS; a shorter log is always counted exactly.
 */
export const LARGE_TOTAL = 10_000;
const TOTAL_REUSE_MS = 5_000;
const MAX_REMEMBERED_TOTALS = 1_000;

/** The delivery log of the developer console: list, inspect and redeliver by hand. */
@Injectable()
export class DeliveriesService {
  private readonly totals = new LRUCache<string, number>({ max: MAX_REMEMBERED_TOTALS, ttl: TOTAL_REUSE_MS });
  private readonly counting = new Map<string, Promise<number>>();

  constructor(
    private readonly database: Database,
    private readonly queue: DeliveryQueue,
    private readonly delivery: DeliveryDomain,
  ) {}

  /** A first page that is not full needs no count: it holds the whole log. */
  async list(ownerId: string, botId: string, query: ListDeliveriesQueryDto): Promise<DeliveryPage> {
    const window = pageWindow(query);
    const status = query.status ?? null;
    const deliveries = await this.delivery.deliveryPage(ownerId, botId, status, window.pageSize, window.offset);
    if (!deliveries) throw BotErrors.notFound('Bot');
    const items = deliveries.map(deliveryView);
    const total =
      window.offset === 0 && items.length < window.pageSize ? items.length : await this.total(botId, status);
    return pageAnswer(items, total, window);
  }

  private total(botId: string, status: DeliveryStatus | null): Promise<number> {
    const key = `${botId}:${status ?? ''}`;
    const remembered = this.totals.get(key);
    if (remembered !== undefined) return Promise.resolve(remembered);
    // Pages asked for while a count runs share it: a long log is counted once, not once per waiting request.
    let running = this.counting.get(key);
    if (!running) {
      running = this.count(key, botId, status).finally(() => this.counting.delete(key));
      this.counting.set(key, running);
    }
    return running;
  }

  private async count(key: string, botId: string, status: DeliveryStatus | null): Promise<number> {
    const total = await this.delivery.deliveryCount(botId, status);
    this.totals.delete(key);
    if (total >= LARGE_TOTAL) this.totals.set(key, total);
    return total;
  }

  async get(ownerId: string, botId: string, updateId: string): Promise<DeliveryDetailView> {
    await this.ownedBot(this.database, ownerId, botId);
    const delivery = await this.findDelivery(this.database, botId, updateId);
    const attempts = await this.delivery.attemptsOf(delivery.id);
    return {
      ...deliveryView(delivery),
      attempt_log: attempts.map(attemptView),
      series_log: seriesLog(delivery, attempts),
    };
  }

  /** A finished delivery (dead letter or succeeded) goes out again under the same update_id. */
  async redeliver(ownerId: string, botId: string, updateId: string): Promise<DeliveryView> {
    return this.database.transaction(async (tx) => {
      await this.assertWebhookMode(tx, ownerId, botId);
      const delivery = await this.findDelivery(tx, botId, updateId);
      const restarted = await this.delivery.redeliver(tx, delivery.id);
      if (restarted.length === 0) {
        throw BotErrors.error('CONFLICT', 'This delivery is still pending or retrying; it needs no redelivery');
      }
      this.queue.enqueueAfterCommit(tx, restarted.map(deliverJobFor));
      return deliveryView(await this.delivery.deliveryById(tx, delivery.id));
    });
  }

  /** Every dead letter of the bot, optionally within a dead_letter_at range [since, until). */
  async redeliverMany(ownerId: string, botId: string, dto: BulkRedeliverDto): Promise<RedeliveredView> {
    if (dto.since && dto.until && Date.parse(dto.since) >= Date.parse(dto.until)) {
      throw BotErrors.invalid('since must be before until', [{ field: 'since', problem: 'must be before until' }]);
    }
    return this.database.transaction(async (tx) => {
      await this.assertWebhookMode(tx, ownerId, botId);
      const restarted = await this.delivery.redeliverDeadLetters(tx, botId, dto.since ?? null, dto.until ?? null);
      this.queue.enqueueAfterCommit(tx, restarted.map(deliverJobFor));
      return { redelivered: restarted.length };
    });
  }

  /** The bot's backlog with its total: what is still to be delivered and what died. */
  async backlog(ownerId: string, botId: string): Promise<DeliveryBacklogView> {
    await this.ownedBot(this.database, ownerId, botId);
    const counts = await this.delivery.backlog(botId);
    return { ...counts, total: counts.pending + counts.retrying + counts.dead_letter };
  }

  private async ownedBot(on: SqlTarget, ownerId: string, botId: string): Promise<void> {
    const mode = await this.delivery.deliveryModeOfOwned(on, ownerId, botId);
    if (!mode) throw BotErrors.notFound('Bot');
  }

  /** Locks the bot's delivery settings so a concurrent deleteWebhook cannot slip between the check and the redelivery. */
  private async assertWebhookMode(on: SqlTarget, ownerId: string, botId: string): Promise<void> {
    const mode = await this.delivery.deliveryModeOfOwned(on, ownerId, botId, true);
    if (!mode) throw BotErrors.notFound('Bot');
    if (mode !== 'webhook') {
      throw BotErrors.error('CONFLICT', 'The bot has no webhook; set one before redelivering');
    }
  }

  private async findDelivery(on: SqlTarget, botId: string, updateId: string): Promise<WebhookDelivery> {
    const delivery = await this.delivery.deliveryOfUpdate(on, botId, updateId);
    if (!delivery) throw BotErrors.notFound('Delivery');
    return delivery;
  }
}
