import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DeliveryQueue } from './delivery-queue';

export interface WrittenUpdate {
  botId: string;
  updateSeq: number;
  updateId: string;
  type: string;
  /** The Update exactly as written to `updates`. */
  payload: Record<string, unknown>;
}

/** Writes the webhook delivery of an Update in the Update's own transaction (outbox). */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: DeliveryQueue) {}

  /** Only a bot in webhook mode gets a delivery row; the mode is read in the same statement. */
  async record(manager: EntityManager, update: WrittenUpdate): Promise<void> {
    const rows: Array<{ id: string }> = await manager.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
       SELECT id, $2, $3, $4, $5 FROM bots WHERE id = $1 AND delivery_mode = 'webhook'
       RETURNING id`,
      [update.botId, update.updateSeq, update.updateId, update.type, JSON.stringify(update.payload)],
    );
    if (rows.length > 0) {
      this.queue.enqueueAfterCommit(manager, [{ deliveryId: rows[0].id, series: 1, priorAttempts: 0 }]);
    }
  }
}
