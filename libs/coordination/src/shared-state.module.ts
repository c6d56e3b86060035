import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { CHANNEL_BUS, type ChannelBus, REDIS } from '@app/platform';
import { PostgresRateLimitStore, RATE_LIMIT_STORE, RedisRateLimitStore, type RateLimitStore } from '@app/rate-limits';
import { PostgresChannelBus } from './channels/postgres-channel-bus';
import { RedisChannelBus } from './channels/redis-channel-bus';
import type { CoordinationSettings } from './coordination-settings';

/**
 * The service database on the server itself, past any pooler at DB_HOST, as a `pg` connection config
 * named for pg_stat_activity. LISTEN needs a session; and a send's quota is counted on the store's own
 * pool inside the send's transaction, so the two pools must not wait on one pooler's server connections
 * (N transactions holding all of them, each waiting for one more for its count).
 */
function postgresConfig(settings: CoordinationSettings, role: string) {
  const db = settings.directDatabase;
  return {
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
    application_name: `${settings.connectionName}-${role}`,
  };
}

/**
 * The one place that picks the rate-limit store and the channel bus for the backend chosen at boot;
 * services inject RATE_LIMIT_STORE and CHANNEL_BUS and never ask which it is. In Redis mode both use
 * the shared client (auto-pipelining on), which RedisModule closes.
 */
export function rateLimitStoreFor(settings: CoordinationSettings, redis: Redis | undefined): RateLimitStore {
  if (settings.backend === 'redis') return new RedisRateLimitStore(requireRedis(redis));
  return PostgresRateLimitStore.connect(postgresConfig(settings, 'rate-limits'));
}

export function channelBusFor(settings: CoordinationSettings, redis: Redis | undefined): ChannelBus {
  if (settings.backend === 'redis') {
    const options = {
      url: settings.redisUrl,
      keyPrefix: settings.redisKeyPrefix,
      connectionName: settings.connectionName,
    };
    return new RedisChannelBus(options, requireRedis(redis));
  }
  return new PostgresChannelBus(postgresConfig(settings, 'channels'));
}

function requireRedis(redis: Redis | undefined): Redis {
  if (!redis) throw new Error('the Redis coordination backend needs the shared REDIS client');
  return redis;
}

@Injectable()
class SharedStateCloser implements OnApplicationShutdown {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(CHANNEL_BUS) private readonly bus: ChannelBus,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.store.close(), this.bus.close()]);
  }
}

/** What the replicas share besides queues: rate-limit counters and wake-up channels. */
@Global()
@Module({})
export class SharedStateModule {
  static forRoot(settings: CoordinationSettings): DynamicModule {
    const redis = { token: REDIS, optional: true };
    return {
      module: SharedStateModule,
      providers: [
        {
          provide: RATE_LIMIT_STORE,
          inject: [redis],
          useFactory: (client?: Redis) => rateLimitStoreFor(settings, client),
        },
        { provide: CHANNEL_BUS, inject: [redis], useFactory: (client?: Redis) => channelBusFor(settings, client) },
        SharedStateCloser,
      ],
      exports: [RATE_LIMIT_STORE, CHANNEL_BUS],
    };
  }
}
