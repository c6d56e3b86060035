import { Module } from '@nestjs/common';
import { DeliveryDomain, registerWebhookQueue } from '@app/bot-delivery';
import { AttemptRecorder } from './attempt-recorder';
import { DeliveryMetrics } from './delivery.metrics';
import { DeliveryProcessor } from './delivery.processor';
import { DeliverySweeper } from './delivery-sweeper';
import { DeliveryLogPurge } from './delivery-log-purge';
import { WebhookWorker } from './webhook-worker';

/** Consumes the webhook queue and keeps it in step with the PostgreSQL outbox. */
@Module({
  imports: [registerWebhookQueue('worker')],
  providers: [
    DeliveryDomain,
    AttemptRecorder,
    DeliveryMetrics,
    DeliveryProcessor,
    WebhookWorker,
    DeliverySweeper,
    DeliveryLogPurge,
  ],
  exports: [DeliverySweeper, DeliveryLogPurge],
})
export class DeliveryModule {}
