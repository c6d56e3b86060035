import type Redis from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { CoordinationBackend } from './config';
import type { Database } from './database-pool';

const PING_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * What the alerts on the process's own dependencies read, on each scrape: whether PostgreSQL (and
 * Redis in the Redis mode) answers this process, and how full its database pool is. Nothing is
 * measured between scrapes.
 */
export class DependencyMetrics {
  constructor(registry: Registry, database: Database, backend: CoordinationBackend, redis?: Redis) {
    const up = new Gauge({
      name: 'app_dependency_up',
      help: 'Whether the dependency answered this process at the last scrape (1) or not (0)',
      labelNames: ['dependency'],
      registers: [registry],
      collect: async () => {
        const answers = async (ping: () => Promise<unknown>) => {
          try {
            await withTimeout(ping());
            return 1;
          } catch {
            return 0;
          }
        };
        up.set({ dependency: 'postgres' }, await answers(() => database.query('SELECT 1')));
        if (backend === 'redis') up.set({ dependency: 'redis' }, redis ? await answers(() => redis.ping()) : 0);
      },
    });
    const connections = new Gauge({
      name: 'app_db_pool_connections',
      help: "Connections of this process's database pool: open, idle, and requests waiting for one",
      labelNames: ['state'],
      registers: [registry],
      collect: () => {
        const { totalCount, idleCount, waitingCount } = database.pool;
        connections.set({ state: 'open' }, totalCount);
        connections.set({ state: 'idle' }, idleCount);
        connections.set({ state: 'waiting' }, waitingCount);
      },
    });
    const max = new Gauge({
      name: 'app_db_pool_max_connections',
      help: "The size of this process's database pool (DB_POOL_SIZE)",
      registers: [registry],
      collect: () => {
        max.set(database.pool.options.max ?? 0);
      },
    });
  }
}
