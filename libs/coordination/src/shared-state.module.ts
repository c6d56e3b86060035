import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { CHANNEL_BUS, type ChannelBus, type DatabaseSettings, preparedStatementsOf, REDIS } from '@app/platform';
import { PostgresRateLimitStore, RATE_LIMIT_STORE, RedisRateLimitStore, type RateLimitStore } from '@app/rate-limits';
import { PostgresChannelBus } from './channels/postgres-channel-bus';
import { RedisChannelBus } from './channels/redis-channel-bus';
import { DataSource } from 'typeorm';
import type { CoordinationSettings } from './coordination-settings';

/** The service database as a `pg` connection config, named for pg_stat_activity. */
function postgresConfig(settings: CoordinationSettings, role: string, db: DatabaseSettings = settings.database) {
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
 * the shared client (auto-pipelining on), which RedisModule closes. In the PostgreSQL-only mode the
 * counters go where the app's own statements go (a pooler or the server), prepared as those are.
 */
export function rateLimitStoreFor(
  settings: CoordinationSettings,
  redis: Redis | undefined,
  dataSource?: DataSource,
): RateLimitStore {
  if (settings.backend === 'redis') return new RedisRateLimitStore(requireRedis(redis));
  const preparedStatements = dataSource ? preparedStatementsOf(dataSource) : 'named';
  return PostgresRateLimitStore.connect(postgresConfig(settings, 'rate-limits'), preparedStatements);
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
  // NOTIFY is one statement that any pooler carries; LISTEN needs a session on the server itself.
  return new PostgresChannelBus(
    postgresConfig(settings, 'channels'),
    postgresConfig(settings, 'channels', settings.directDatabase),
  );
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
          inject: [redis, { token: DataSource, optional: true }],
          useFactory: (client?: Redis, dataSource?: DataSource) => rateLimitStoreFor(settings, client, dataSource),
        },
        { provide: CHANNEL_BUS, inject: [redis], useFactory: (client?: Redis) => channelBusFor(settings, client) },
        SharedStateCloser,
      ],
      exports: [RATE_LIMIT_STORE, CHANNEL_BUS],
    };
  }
}
