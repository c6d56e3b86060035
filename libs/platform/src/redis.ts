import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

export const REDIS = Symbol('REDIS');

/** `keyPrefix` is applied by ioredis to every key (not to pub/sub channel names: prefix those yourself). */
export function createRedis(url: string, connectionName: string, keyPrefix = ''): Redis {
  return new Redis(url, { connectionName, keyPrefix, maxRetriesPerRequest: 2 });
}

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared ioredis client per process (rate limits, pub/sub publishers, health). */
@Global()
@Module({})
export class RedisModule {
  static forRoot(url: string, connectionName: string, keyPrefix = ''): DynamicModule {
    return {
      module: RedisModule,
      providers: [{ provide: REDIS, useFactory: () => createRedis(url, connectionName, keyPrefix) }, RedisCloser],
      exports: [REDIS],
    };
  }
}
