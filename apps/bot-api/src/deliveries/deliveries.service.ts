import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DeliverJobData, WebhookDelivery, WebhookDeliveryAttempt } from '@app/webhook-queue';
import { DataSource, EntityManager } from 'typeorm';
import { pageOf } from '../bots/dto/page-query.dto';
import { DeliveryQueue } from './delivery-queue';
import { attemptView, AttemptView, deliveryView, DeliveryView } from './delivery.view';
import { BulkRedeliverDto, ListDeliveriesQueryDto } from './dto/deliveries.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Starts a new attempt series: the dispatcher skips jobs of the old one. */
const RESTART_SERIES = `status = 'pending', series = series + 1, attempts = 0, next_attempt_at = now(),
  dead_letter_at = NULL, succeeded_at = NULL, last_error = NULL, last_status_code = NULL, updated_at = now()`;

export interface DeliveryPage {
  items: DeliveryView[];
  total: number;
  page: number;
  page_size: number;
}

/** The delivery log of the developer console: list, inspect and redeliver by hand. */
@Injectable()
export class DeliveriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: DeliveryQueue,
  ) {}

  async list(ownerId: string, botId: string, query: ListDeliveriesQueryDto): Promise<DeliveryPage> {
    await this.ownedBot(this.dataSource.manager, ownerId, botId);
    const { page, pageSize, skip } = pageOf(query);
    const [rows, total] = await this.dataSource.getRepository(WebhookDelivery).findAndCount({
      where: { botId, ...(query.status ? { status: query.status } : {}) },
      order: { updateSeq: 'DESC' },
      skip,
      take: pageSize,
    });
    return { items: rows.map(deliveryView), total, page, page_size: pageSize };
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

function jobOf(row: { id: string; series: number }): DeliverJobData {
  return { deliveryId: row.id, series: Number(row.series), priorAttempts: 0 };
}
