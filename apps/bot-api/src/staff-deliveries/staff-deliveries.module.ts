import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { AutomaticRedrives } from './automatic-redrives';
import { CONSOLE_PATH, consoleFiles, consoleHeaders } from './console-pages';
import { RedriveJobsService } from './redrive-jobs.service';
import { RedriveJobsStore } from './redrive-jobs.store';
import { RedriveProcessor } from './redrive.processor';
import { RedriveQueue, registerRedriveQueue } from './redrive-queue';
import { RedriveTick } from './redrive-tick';
import { StaffAuditStore } from './staff-audit.store';
import { StaffDeliveriesController } from './staff-deliveries.controller';
import { StaffDeliveriesMetrics } from './staff-deliveries.metrics';
import { StaffDeliveriesService } from './staff-deliveries.service';

/** Platform staff's delivery operations: the routes, redrive jobs and their worker, the audit log, the console page. */
@Module({
  imports: [DeliveriesModule, registerRedriveQueue()],
  controllers: [StaffDeliveriesController],
  providers: [
    StaffDeliveriesService,
    RedriveJobsService,
    RedriveJobsStore,
    RedriveQueue,
    RedriveProcessor,
    RedriveTick,
    AutomaticRedrives,
    StaffAuditStore,
    StaffDeliveriesMetrics,
  ],
})
export class StaffDeliveriesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(consoleHeaders, consoleFiles)
      .forRoutes(
        { path: CONSOLE_PATH, method: RequestMethod.ALL },
        { path: `${CONSOLE_PATH}/*path`, method: RequestMethod.ALL },
      );
  }
}
