import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

export const REDIS = Symbol('REDIS');

/**
 * `keyPrefix` is applied by ioredis to every key (not to pub/sub channel names: prefix those yourself).
 * `autoPipelining` sends the commands of one event-loop tick in one write (e.g. a request's rate-limit
 * and lock-out checks); keep it off for subscriber and blocking connections.
 */
export function createRedis(url: string, connectionName: string, keyPrefix = '', autoPipelining = false): Redis {
  return new Redis(url, { connectionName, keyPrefix, maxRetriesPerRequest: 2, enableAutoPipelining: autoPipelining });
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
      providers: [{ provide: REDIS, useFactory: () => createRedis(url, connectionName, keyPrefix, true) }, RedisCloser],
      exports: [REDIS],
    };
  }
}
