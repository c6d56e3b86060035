import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdateRecord } from './entities/update.entity';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { UpdatesService } from './updates.service';
import { UpdatesStore } from './updates.store';

/** The Update outbox: every module that makes an Update writes it here; get-updates and webhooks read it. */
@Module({
  imports: [TypeOrmModule.forFeature([UpdateRecord]), DeliveriesModule],
  providers: [UpdatesStore, UpdateNotifier, UpdatesService, UpdatesMetrics],
  exports: [UpdatesService, UpdateNotifier, UpdatesStore, UpdatesMetrics],
})
export class UpdatesModule {}
