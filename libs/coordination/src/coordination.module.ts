import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { RedisModule } from '@app/platform';
import { DataSource } from 'typeorm';
import type { CoordinationSettings } from './coordination-settings';
import { queueClientOptions, selectQueueBackend } from './queue-connection';
import { prepareQueueSchema } from './queue-schema';
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
        BullModule.forRootAsync({
          // Every queue's options wait for this factory, and it waits for the app's DataSource, whose
          // start-up runs the migrations (BullMQ's PostgreSQL schema among them): no queue connects
          // to a database that lacks the schema, and a database that still lacks it afterwards (the
          // migrations left to a Job that has not run) stops the boot with one clear error.
          inject: [{ token: DataSource, optional: true }],
          useFactory: async () => {
            if (settings.backend === 'postgres') await prepareQueueSchema(settings.directDatabase, false);
            return queueClientOptions(settings, 'worker', `${settings.connectionName}-queues`);
          },
        }),
        SharedStateModule.forRoot(settings),
      ],
      providers: [{ provide: COORDINATION, useValue: settings }],
      exports: [COORDINATION, BullModule, ...redis],
    };
  }
}
