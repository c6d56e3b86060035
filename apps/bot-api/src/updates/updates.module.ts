import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UpdateOutbox, UpdateRecord, UpdatesStore } from '@app/bot-delivery';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { UpdatesService } from './updates.service';

/**
 * The Update outbox: every module that makes an Update writes it here (through bot delivery's UpdateOutbox,
 * which writes `updates` with their deliveries); get-updates and webhooks read and confirm it (UpdatesStore).
 */
@Module({
  imports: [TypeOrmModule.forFeature([UpdateRecord]), DeliveriesModule],
  providers: [UpdatesStore, UpdateOutbox, UpdateNotifier, UpdatesService, UpdatesMetrics],
  exports: [UpdatesService, UpdateNotifier, UpdatesStore, UpdatesMetrics],
})
export class UpdatesModule {}
