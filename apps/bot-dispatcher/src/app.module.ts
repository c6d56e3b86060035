import { DynamicModule, Module } from '@nestjs/common';
import { botEnvelope, EnvelopeModule } from '@app/envelope';
import {
  databaseModule,
  HealthModule,
  HttpFoundationModule,
  loggingModule,
  MetricsModule,
  RedisModule,
} from '@app/platform';
import { DispatcherConfig } from './config/dispatcher.config';
import { DeliveryModule } from './delivery/delivery.module';

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
        RedisModule.forRoot(config.REDIS_URL, 'bot-dispatcher', config.REDIS_KEY_PREFIX),
        HealthModule.forRoot(),
        MetricsModule,
        DeliveryModule,
      ],
      providers: [{ provide: DispatcherConfig, useValue: config }],
      exports: [DispatcherConfig],
    };
  }
}
