import { Injectable } from '@nestjs/common';
import { DeliveryQueue } from './delivery-queue';
import type { CommitScope } from '../database/after-commit';

/**
 * The webhook side of the Update outbox. Delivery rows are written by the statement that writes
 * their Updates (UpdatesService), in the Update's own transaction; their first attempt is queued
 * once that transaction commits.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: DeliveryQueue) {}

  deliverAfterCommit(on: CommitScope, deliveries: ReadonlyArray<{ id: string; botId: string }>): void {
    if (deliveries.length === 0) return;
    this.queue.enqueueAfterCommit(
      on,
      deliveries.map((delivery) => ({ deliveryId: delivery.id, series: 1, priorAttempts: 0, botId: delivery.botId })),
    );
  }
}
