import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { DeliveryPartitionsTask } from './delivery-partitions-task';

/** The day partitions of the delivery tables: created ahead and, for Updates, dropped past the retention. */
@Module({
  imports: [DeliveriesModule],
  providers: [DeliveryPartitionsTask],
  exports: [DeliveryPartitionsTask],
})
export class DeliveryPartitionsModule {}
