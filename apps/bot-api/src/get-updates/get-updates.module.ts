import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UpdatesModule } from '../updates/updates.module';
import { UpdatesController } from './get-updates.controller';
import { PollingService } from './polling.service';

/** getUpdates: a bot reads its Updates from the outbox, waiting for new ones, and confirms them. */
@Module({
  imports: [BotsModule, DeliveriesModule, UpdatesModule],
  controllers: [UpdatesController],
  providers: [PollingService],
  exports: [PollingService],
})
export class GetUpdatesModule {}
