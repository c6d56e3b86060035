import { PostgresChannelBus, RedisChannelBus } from '@app/coordination';
import type { ChannelBus, CoordinationBackend } from '@app/platform';
import {
  PostgresRateLimitStore,
  rateLimitTableMigration,
  RedisRateLimitStore,
  type RateLimitStore,
} from '@app/rate-limits';
import Redis from 'ioredis';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from './test-database';
import { deleteRedisKeys, testRedisPrefix } from './test-app';

const POSTGRES = {
  host: process.env.DB_HOST ?? '127.0.0.1',
  port: Number(process.env.DB_PORT ?? 5432),
  user: process.env.DB_USER ?? 'postgres',
  password: process.env.DB_PASSWORD ?? '',
};
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The counters of one test: each `replica()` is a store on connections of its own, all counting together. */
export interface TestRateLimitStores {
  replica(): Promise<RateLimitStore>;
  /** A store aimed at a closed port, where every call fails at once. */
  unreachable(): RateLimitStore;
  close(): Promise<void>;
}

/** Rate-limit stores of the given backend for a unit test, on a database (or Redis prefix) of its own. */
export function testRateLimitStores(backend: CoordinationBackend): TestRateLimitStores {
  const closers: (() => Promise<void>)[] = [];
  const prefix = testRedisPrefix();
  let database: Promise<TestDatabase> | undefined;
  const postgres = (port: number, name: string) => {
    const store = PostgresRateLimitStore.connect({ ...POSTGRES, port, database: name });
    closers.push(() => store.close());
    return store;
  };
  const redis = (url: string, reachable: boolean) => {
    const client = new Redis(url, {
      keyPrefix: prefix,
      enableAutoPipelining: true,
      ...(reachable ? {} : { lazyConnect: true, retryStrategy: () => null }),
    });
    client.on('error', () => undefined);
    closers.push(async () => client.disconnect());
    return client;
  };
  return {
    async replica() {
      if (backend === 'redis') {
        const client = redis(REDIS_URL, true);
        await client.ping();
        return new RedisRateLimitStore(client);
      }
      database ??= createTestDatabase('ratelimits', [rateLimitTableMigration('CreateRateLimits1796000000000')]);
      return postgres(POSTGRES.port, (await database).name);
    },
    unreachable() {
      return backend === 'redis'
        ? new RedisRateLimitStore(redis('redis://127.0.0.1:1', false))
        : postgres(1, 'unreachable');
    },
    async close() {
      for (const close of closers) await close();
      if (database) await (await database).drop();
      if (backend === 'redis') await deleteRedisKeys(REDIS_URL, prefix);
    },
  };
}

/** The channel buses of one test: each `replica()` listens on connections of its own, all on one namespace. */
export interface TestChannelBuses {
  /** Names every connection of these buses (Redis client name, PostgreSQL application_name prefix). */
  readonly connectionName: string;
  replica(): Promise<ChannelBus>;
  /** A bus aimed at a closed port: nothing is ever listened to, every publish fails. */
  unreachable(): ChannelBus;
  /** Ends the listening connections of these buses from the server side, as a restart or a network cut would. */
  cutListeningConnections(): Promise<void>;
  close(): Promise<void>;
}

/** Channel buses of the given backend for a unit test, on a database (or Redis prefix) of its own. */
export function testChannelBuses(backend: CoordinationBackend): TestChannelBuses {
  const buses: ChannelBus[] = [];
  const publishers: Redis[] = [];
  const prefix = testRedisPrefix();
  const connectionName = `channel-bus-test-${prefix.slice(5, -1)}`;
  let database: Promise<TestDatabase> | undefined;
  const build = (reachable: boolean, database: string): ChannelBus => {
    let bus: ChannelBus;
    if (backend === 'redis') {
      const url = reachable ? REDIS_URL : 'redis://127.0.0.1:1';
      const publisher = new Redis(url, {
        maxRetriesPerRequest: 0,
        ...(reachable ? {} : { retryStrategy: () => null }),
      });
      publisher.on('error', () => undefined);
      publishers.push(publisher);
      bus = new RedisChannelBus({ url, keyPrefix: prefix, connectionName }, publisher);
    } else {
      const port = reachable ? POSTGRES.port : 1;
      bus = new PostgresChannelBus({ ...POSTGRES, port, database, application_name: connectionName });
    }
    buses.push(bus);
    return bus;
  };
  return {
    connectionName,
    async replica() {
      if (backend === 'redis') return build(true, '');
      database ??= createTestDatabase('channels', []);
      return build(true, (await database).name);
    },
    unreachable: () => build(false, 'unreachable'),
    cutListeningConnections: () => cutListeningConnections(backend, connectionName),
    async close() {
      for (const bus of buses) await bus.close();
      for (const publisher of publishers) publisher.disconnect();
      if (database) await (await database).drop();
    },
  };
}

async function cutListeningConnections(backend: CoordinationBackend, name: string): Promise<void> {
  if (backend === 'redis') {
    const admin = new Redis(REDIS_URL);
    try {
      const clients = (await admin.client('LIST')) as string;
      for (const line of clients.split('\n').filter((entry) => entry.includes(` name=${name}-channels `))) {
        const id = /^id=(\d+)/.exec(line)?.[1];
        if (id) await admin.client('KILL', 'ID', id);
      }
    } finally {
      admin.disconnect();
    }
    return;
  }
  const admin = new Client({ ...POSTGRES, database: 'postgres' });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
      `${name}-listen`,
    ]);
  } finally {
    await admin.end();
  }
}
