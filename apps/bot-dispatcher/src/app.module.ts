import { DynamicModule, Module } from '@nestjs/common';
import { CoordinationModule, coordinationSettings, PeriodicWorkModule } from '@app/coordination';
import { botEnvelope, EnvelopeModule } from '@app/envelope';
import { databaseModule, HealthModule, HttpFoundationModule, loggingModule, MetricsModule } from '@app/platform';
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
        HealthModule.forRoot(config.coordinationBackend),
        MetricsModule,
        DeliveryModule,
        PeriodicWorkModule.forRoot({
          queue: 'bot-dispatcher-periodic',
          tasks: { 'delivery-sweep': DeliverySweeper, 'delivery-log-purge': DeliveryLogPurge },
        }),
      ],
      providers: [{ provide: DispatcherConfig, useValue: config }],
      exports: [DispatcherConfig],
    };
  }
}
