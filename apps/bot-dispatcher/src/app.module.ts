import { getQueueToken } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOK_QUEUE } from '@app/bot-delivery';
import { CoordinationModule, coordinationSettings, PeriodicWorkModule } from '@app/coordination';
import { botEnvelope, EnvelopeModule } from '@app/envelope';
import {
  databaseModule,
  HealthModule,
  HttpFoundationModule,
  loggingModule,
  MetricsModule,
  readBuildInfo,
} from '@app/platform';
import { DispatcherConfig } from './config/dispatcher.config';
import { DeliveryLogPurge } from './delivery/delivery-log-purge';
import { DeliveryModule } from './delivery/delivery.module';
import { DeliverySweeper } from './delivery/delivery-sweeper';

/** The webhook worker; its only HTTP surface is health and metrics (port 3003, not exposed publicly). */
@Module({})
export class AppModule {
  static forRoot(config: DispatcherConfig): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        loggingModule('bot-dispatcher', config.LOG_LEVEL),
        EnvelopeModule.forRoot(botEnvelope),
        HttpFoundationModule.forRoot({ bodyLimit: config.BODY_LIMIT }),
        databaseModule(config, []),
        CoordinationModule.forRoot(coordinationSettings(config, 'bot-dispatcher')),
        // The worker has no hot HTTP route: its warm-up opens the pool and the queue's connection.
        HealthModule.forRoot(
          config.coordinationBackend,
          { queues: [getQueueToken(WEBHOOK_QUEUE)] },
          readBuildInfo(__dirname),
        ),
        MetricsModule,
        DeliveryModule,
        PeriodicWorkModule.forRoot({
          queue: 'bot-dispatcher-periodic',
          tasks: {
            'delivery-sweep': DeliverySweeper,
            'delivery-log-purge': DeliveryLogPurge,
          },
        }),
      ],
      providers: [{ provide: DispatcherConfig, useValue: config }],
      exports: [DispatcherConfig],
    };
  }
}
