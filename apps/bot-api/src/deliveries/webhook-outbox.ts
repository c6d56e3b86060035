import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DeliveryQueue } from './delivery-queue';

/**
 * The webhook side of the Update outbox. Delivery rows are written by the statement that writes
 * their Updates (UpdatesService), in the Update's own transaction; their first attempt is queued
 * once that transaction commits.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly queue: DeliveryQueue) {}

  deliverAfterCommit(manager: EntityManager, deliveryIds: readonly string[]): void {
    if (deliveryIds.length === 0) return;
    this.queue.enqueueAfterCommit(
      manager,
      deliveryIds.map((deliveryId) => ({ deliveryId, series: 1, priorAttempts: 0 })),
    );
  }
}
