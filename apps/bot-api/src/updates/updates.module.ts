import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdateRecord } from './entities/update.entity';
import { PollingService } from './polling.service';
import { UpdateNotifier } from './update-notifier';
import { UpdatesPurgeService } from './updates-purge.service';
import { UpdatesController } from './updates.controller';
import { UpdatesMetrics } from './updates.metrics';
import { UpdatesService } from './updates.service';
import { UpdatesStore } from './updates.store';

@Module({
  imports: [TypeOrmModule.forFeature([UpdateRecord]), BotsModule, DeliveriesModule],
  controllers: [UpdatesController],
  providers: [UpdatesStore, UpdateNotifier, UpdatesService, PollingService, UpdatesPurgeService, UpdatesMetrics],
  exports: [UpdatesService, UpdateNotifier, PollingService],
})
export class UpdatesModule {}
