/**
 * The baselines' BullMQ connection: on the backend the apps run on in this bench run, with the apps'
 * own connection options (libs/coordination's queueClientOptions), so that a baseline's queue costs
 * what the app's does and the ratio measures the app's code, not a different queue set-up. Read from
 * the variables the services read: COORDINATION_BACKEND, REDIS_URL, REDIS_KEY_PREFIX and DB_*.
 */
import { runMigrations } from 'bullmq';
import type { Client } from 'pg';
import {
  QUEUE_SCHEMA,
  queueClientOptions,
  QueueClientOptions,
  QueueRole,
  selectQueueBackend,
} from '../../libs/coordination/src/queue-connection';

type Env = Record<string, string | undefined>;

/** Options for a baseline's Queue or Worker; also points this process's BullMQ at the run's backend. */
export function baselineQueueOptions(env: Env, role: QueueRole, name: string): QueueClientOptions {
  const backend = env.COORDINATION_BACKEND === 'postgres' ? 'postgres' : 'redis';
  selectQueueBackend(backend);
  const database = {
    host: env.DB_HOST ?? '127.0.0.1',
    port: Number(env.DB_PORT ?? 5432),
    user: env.DB_USER ?? 'postgres',
    password: env.DB_PASSWORD ?? '',
    database: env.DB_NAME ?? '',
    poolSize: Number(env.DB_POOL_SIZE ?? 10),
  };
  const settings = {
    backend,
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? '',
    database,
    directDatabase: database,
    connectionName: name,
  } as const;
  return queueClientOptions(settings, role, name);
}

/** A fresh BullMQ schema in the baseline database, as the services' migrations make one in theirs. */
export async function resetBaselineQueueSchema(db: Client): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${QUEUE_SCHEMA} CASCADE`);
  await runMigrations(db, QUEUE_SCHEMA);
}
