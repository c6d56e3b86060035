import { deliverJobFor } from '@app/bot-delivery';
import { Injectable } from '@nestjs/common';
import { DeliveryQueue } from './delivery-queue';
import type { CommitScope } from '../database/after-commit';

/** A delivery the outbox wrote beside its Update: its bot and the day it lies in. */
export interface OutboxDelivery {
  id: string;
  botId: string;
  createdAt: Date | null;
}

/**
 * The webhook side of the Update outbox. Delivery rows are written by the statement that writes
 * their Updates (UpdatesService), in the Update's own transaction; their first attempt is queued
 * once that transaction commits.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: DeliveryQueue) {}

  deliverAfterCommit(on: CommitScope, deliveries: readonly OutboxDelivery[]): void {
    if (deliveries.length === 0) return;
    this.queue.enqueueAfterCommit(
      on,
      deliveries.map((delivery) =>
        deliverJobFor({
          id: delivery.id,
          series: 1,
          bot_id: delivery.botId,
          created_at: delivery.createdAt ?? undefined,
        }),
      ),
    );
  }
}
