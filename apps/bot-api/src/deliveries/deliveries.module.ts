import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryDomain, registerWebhookQueue, WebhookDelivery, WebhookDeliveryAttempt } from '@app/bot-delivery';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryQueue } from './delivery-queue';
import { WebhookOutbox } from './webhook-outbox';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery, WebhookDeliveryAttempt]), registerWebhookQueue('producer')],
  controllers: [DeliveriesController],
  providers: [DeliveryDomain, DeliveriesService, DeliveryQueue, WebhookOutbox],
  exports: [DeliveryDomain, DeliveryQueue, WebhookOutbox],
})
export class DeliveriesModule {}
