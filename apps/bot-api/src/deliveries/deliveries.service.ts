import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { namedStatement, runNamed } from '@app/platform';
import { DeliverJobData, DeliveryStatus, WebhookDelivery, WebhookDeliveryAttempt } from '@app/webhook-queue';
import { DataSource, EntityManager } from 'typeorm';
import { pageOf } from '../bots/dto/page-query.dto';
import { DeliveryQueue } from './delivery-queue';
import { attemptView, AttemptView, deliveryView, DeliveryView } from './delivery.view';
import { BulkRedeliverDto, ListDeliveriesQueryDto } from './dto/deliveries.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Starts a new attempt series: the dispatcher skips jobs of the old one. */
const RESTART_SERIES = `status = 'pending', series = series + 1, attempts = 0, next_attempt_at = now(),
  dead_letter_at = NULL, succeeded_at = NULL, last_error = NULL, last_status_code = NULL, updated_at = now()`;

/**
 * A page of the delivery log of one of the caller's bots, newest first: no row when the bot is not
 * theirs, one row with only `owned` when the page is empty. Walks (bot_id, update_seq DESC).
 */
const DELIVERY_PAGE = namedStatement(
  'bot_api_deliveries_page',
  `SELECT true AS owned, d.update_id, d.update_type, d.status, d.attempts, d.series, d.dead_letter_at,
          d.last_error, d.last_status_code, d.next_attempt_at, d.succeeded_at, d.created_at, d.updated_at
     FROM bots b
     LEFT JOIN LATERAL (
       SELECT * FROM webhook_deliveries
        WHERE bot_id = b.id AND ($3::varchar IS NULL OR status = $3::varchar)
        ORDER BY update_seq DESC LIMIT $4 OFFSET $5
     ) d ON true
    WHERE b.id = $1 AND b.owner_id = $2`,
);

/** Without a status filter the count is an index-only scan of webhook_deliveries_bot. */
const DELIVERY_COUNT = namedStatement(
  'bot_api_deliveries_count',
  `SELECT count(*) AS total FROM webhook_deliveries WHERE bot_id = $1`,
);

const DELIVERY_COUNT_IN_STATUS = namedStatement(
  'bot_api_deliveries_count_in_status',
  `SELECT count(*) AS total FROM webhook_deliveries WHERE bot_id = $1 AND status = $2`,
);

/**
 * Counting a long delivery log costs time in proportion to its length on every page view, so a
 * total at or above this is reused for TOTAL_REUSE_MS; a shorter log is always counted exactly.
 */
export const LARGE_TOTAL = 10_000;
const TOTAL_REUSE_MS = 5_000;
const MAX_REMEMBERED_TOTALS = 1_000;

interface DeliveryRow {
  owned: true;
  update_id: string | null;
  update_type: string;
  status: DeliveryStatus;
  attempts: number;
  series: number;
  dead_letter_at: Date | null;
  last_error: string | null;
  last_status_code: number | null;
  next_attempt_at: Date;
  succeeded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryPage {
  items: DeliveryView[];
  total: number;
  page: number;
  page_size: number;
}

/** The delivery log of the developer console: list, inspect and redeliver by hand. */
@Injectable()
export class DeliveriesService {
  private readonly totals = new Map<string, { total: number; until: number }>();
  private readonly counting = new Map<string, Promise<number>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: DeliveryQueue,
  ) {}

  /** A first page that is not full needs no count: it holds the whole log. */
  async list(ownerId: string, botId: string, query: ListDeliveriesQueryDto): Promise<DeliveryPage> {
    const { page, pageSize, skip } = pageOf(query);
    const status = query.status ?? null;
    const { rows } = await runNamed<DeliveryRow>(this.dataSource, DELIVERY_PAGE, [
      botId,
      ownerId,
      status,
      pageSize,
      skip,
    ]);
    if (rows.length === 0) throw ApiError.notFound('Bot');
    const items = rows.filter((row) => row.update_id !== null).map((row) => deliveryView(deliveryOf(row)));
    const total = skip === 0 && items.length < pageSize ? items.length : await this.total(botId, status);
    return { items, total, page, page_size: pageSize };
  }

  private total(botId: string, status: DeliveryStatus | null): Promise<number> {
    const key = `${botId}:${status ?? ''}`;
    const remembered = this.totals.get(key);
    if (remembered && remembered.until > Date.now()) return Promise.resolve(remembered.total);
    // Pages asked for while a count runs share it: a long log is counted once, not once per waiting request.
    let running = this.counting.get(key);
    if (!running) {
      running = this.count(key, botId, status).finally(() => this.counting.delete(key));
      this.counting.set(key, running);
    }
    return running;
  }

  private async count(key: string, botId: string, status: DeliveryStatus | null): Promise<number> {
    const { rows } = await runNamed<{ total: string }>(
      this.dataSource,
      status === null ? DELIVERY_COUNT : DELIVERY_COUNT_IN_STATUS,
      status === null ? [botId] : [botId, status],
    );
    const total = Number(rows[0].total);
    this.totals.delete(key);
    if (total >= LARGE_TOTAL) {
      if (this.totals.size >= MAX_REMEMBERED_TOTALS) this.totals.delete(this.totals.keys().next().value as string);
      this.totals.set(key, { total, until: Date.now() + TOTAL_REUSE_MS });
    }
    return total;
  }

  async get(ownerId: string, botId: string, updateId: string): Promise<DeliveryView & { attempt_log: AttemptView[] }> {
    await this.ownedBot(this.dataSource.manager, ownerId, botId);
    const delivery = await this.findDelivery(this.dataSource.manager, botId, updateId);
    const attempts = await this.dataSource.getRepository(WebhookDeliveryAttempt).find({
      where: { deliveryId: delivery.id },
      order: { series: 'ASC', attempt: 'ASC' },
    });
    return { ...deliveryView(delivery), attempt_log: attempts.map(attemptView) };
  }

  /** A finished delivery (dead letter or succeeded) goes out again under the same update_id. */
  async redeliver(ownerId: string, botId: string, updateId: string): Promise<DeliveryView> {
    return this.dataSource.transaction(async (manager) => {
      await this.assertWebhookMode(manager, ownerId, botId);
      const delivery = await this.findDelivery(manager, botId, updateId);
      const rows: [Array<{ id: string; series: number }>, number] = await manager.query(
        `UPDATE webhook_deliveries SET ${RESTART_SERIES}
          WHERE id = $1 AND status IN ('dead_letter', 'succeeded')
          RETURNING id, series`,
        [delivery.id],
      );
      if (rows[1] === 0) {
        throw ApiError.conflict('CONFLICT', 'This delivery is still pending or retrying; it needs no redelivery');
      }
      this.queue.enqueueAfterCommit(manager, rows[0].map(jobOf));
      return deliveryView(await manager.getRepository(WebhookDelivery).findOneByOrFail({ id: delivery.id }));
    });
  }

  /** Every dead letter of the bot, optionally within a dead_letter_at range [since, until). */
  async redeliverMany(ownerId: string, botId: string, dto: BulkRedeliverDto): Promise<{ redelivered: number }> {
    if (dto.since && dto.until && Date.parse(dto.since) >= Date.parse(dto.until)) {
      throw ApiError.badRequest('since must be before until', [{ field: 'since', problem: 'must be before until' }]);
    }
    return this.dataSource.transaction(async (manager) => {
      await this.assertWebhookMode(manager, ownerId, botId);
      const rows: [Array<{ id: string; series: number }>, number] = await manager.query(
        `UPDATE webhook_deliveries SET ${RESTART_SERIES}
          WHERE bot_id = $1 AND status = 'dead_letter'
            AND ($2::timestamptz IS NULL OR dead_letter_at >= $2::timestamptz)
            AND ($3::timestamptz IS NULL OR dead_letter_at < $3::timestamptz)
          RETURNING id, series`,
        [botId, dto.since ?? null, dto.until ?? null],
      );
      this.queue.enqueueAfterCommit(manager, rows[0].map(jobOf));
      return { redelivered: rows[1] };
    });
  }

  private async ownedBot(manager: EntityManager, ownerId: string, botId: string): Promise<{ delivery_mode: string }> {
    const rows: Array<{ delivery_mode: string }> = await manager.query(
      `SELECT delivery_mode FROM bots WHERE id = $1 AND owner_id = $2`,
      [botId, ownerId],
    );
    if (rows.length === 0) throw ApiError.notFound('Bot');
    return rows[0];
  }

  /** Locks the bot row so a concurrent deleteWebhook cannot slip between the check and the redelivery. */
  private async assertWebhookMode(manager: EntityManager, ownerId: string, botId: string): Promise<void> {
    const rows: Array<{ delivery_mode: string }> = await manager.query(
      `SELECT delivery_mode FROM bots WHERE id = $1 AND owner_id = $2 FOR SHARE`,
      [botId, ownerId],
    );
    if (rows.length === 0) throw ApiError.notFound('Bot');
    if (rows[0].delivery_mode !== 'webhook') {
      throw ApiError.conflict('CONFLICT', 'The bot has no webhook; set one before redelivering');
    }
  }

  private async findDelivery(manager: EntityManager, botId: string, updateId: string): Promise<WebhookDelivery> {
    const delivery = UUID.test(updateId)
      ? await manager.getRepository(WebhookDelivery).findOneBy({ botId, updateId: updateId.toLowerCase() })
      : null;
    if (!delivery) throw ApiError.notFound('Delivery');
    return delivery;
  }
}

function deliveryOf(row: DeliveryRow): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    updateId: row.update_id,
    updateType: row.update_type,
    status: row.status,
    attempts: row.attempts,
    series: row.series,
    deadLetterAt: row.dead_letter_at,
    lastError: row.last_error,
    lastStatusCode: row.last_status_code,
    nextAttemptAt: row.next_attempt_at,
    succeededAt: row.succeeded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

function jobOf(row: { id: string; series: number }): DeliverJobData {
  return { deliveryId: row.id, series: Number(row.series), priorAttempts: 0 };
}
