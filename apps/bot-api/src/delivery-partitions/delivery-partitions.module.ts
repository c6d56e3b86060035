import { Module } from '@nestjs/common';
import { DeliveryPartitionsTask } from './delivery-partitions-task';
import { DeliveryPartitionsStore } from './delivery-partitions.store';

/** The day partitions of the delivery tables: created ahead and, for Updates, dropped past the retention. */
@Module({
  providers: [DeliveryPartitionsStore, DeliveryPartitionsTask],
  exports: [DeliveryPartitionsTask],
})
export class DeliveryPartitionsModule {}
