import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { DeliveryPartitionsTask } from './delivery-partitions-task';
import { DeliveryPartitionsMetrics } from './delivery-partitions.metrics';

/** The day partitions of the delivery tables: created ahead, Updates' dropped past the retention, the days left. */
@Module({
  imports: [DeliveriesModule],
  providers: [DeliveryPartitionsTask, DeliveryPartitionsMetrics],
  exports: [DeliveryPartitionsTask],
})
export class DeliveryPartitionsModule {}
