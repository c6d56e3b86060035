import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { RedisModule } from '@app/platform';
import type { CoordinationSettings } from './coordination-settings';
import { queueClientOptions, selectQueueBackend } from './queue-connection';
import { SharedStateModule } from './shared-state.module';

/** The injection token of the process's CoordinationSettings. */
export const COORDINATION = Symbol('COORDINATION');

/**
 * What the replicas of a service share, on the backend chosen at boot: BullMQ's connection for every
 * queue and processor of the app, the settings that the rate-limit stores and the wake-up channels
 * read, and (Redis mode only) the shared ioredis client.
 */
@Global()
@Module({})
export class CoordinationModule {
  static forRoot(settings: CoordinationSettings): DynamicModule {
    selectQueueBackend(settings.backend);
    const redis =
      settings.backend === 'redis'
        ? [RedisModule.forRoot(settings.redisUrl, settings.connectionName, settings.redisKeyPrefix)]
        : [];
    return {
      module: CoordinationModule,
      imports: [
        ...redis,
        BullModule.forRoot(queueClientOptions(settings, 'worker', `${settings.connectionName}-queues`)),
        SharedStateModule.forRoot(settings),
      ],
      providers: [{ provide: COORDINATION, useValue: settings }],
      exports: [COORDINATION, BullModule, ...redis],
    };
  }
}
