import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UpdateRecord } from '@app/bot-delivery';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { UpdatesService } from './updates.service';

/**
 * The Update outbox: every module that makes an Update writes it here (through @app/bot-delivery's
 * DeliveryDomain, which writes `updates` with their deliveries); get-updates and webhooks read and confirm
 * it through the same DeliveryDomain, which DeliveriesModule provides and this module passes on.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UpdateRecord]), DeliveriesModule],
  providers: [UpdateNotifier, UpdatesService, UpdatesMetrics],
  exports: [UpdatesService, UpdateNotifier, UpdatesMetrics, DeliveriesModule],
})
export class UpdatesModule {}
