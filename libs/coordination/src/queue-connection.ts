import { createPostgresBackend, setDefaultBackendFactory } from 'bullmq';
import type { ConnectionOptions, RedisOptions, Telemetry } from 'bullmq';
import type { CoordinationBackend } from '@app/platform';
import { queueTelemetry } from '@app/telemetry';
import type { CoordinationSettings } from './coordination-settings';

/** The PostgreSQL schema that holds BullMQ's tables in each service database (PostgreSQL-only mode). */
export const QUEUE_SCHEMA = 'bullmq';

/**
 * Points every BullMQ Queue and Worker this process builds at the backend. It is process-wide because
 * @nestjs/bullmq constructs queues and workers without a backend argument; a process runs one mode.
 */
export function selectQueueBackend(backend: CoordinationBackend): void {
  setDefaultBackendFactory(backend === 'postgres' ? createPostgresBackend : undefined);
}

export type QueueRole = 'producer' | 'worker';

/** Connections one Queue or Worker may open in the PostgreSQL-only mode. */
const QUEUE_POOL_MAX = 10;

/** Options of a Queue or Worker: where it connects, on Redis the key prefix, and the tracing hook while tracing is on. */
export interface QueueClientOptions {
  connection: ConnectionOptions;
  prefix?: string;
  telemetry?: Telemetry;
}

/** BullMQ keys live under `${REDIS_KEY_PREFIX}bull`, beside the app's other prefixed keys. */
export function queueKeyPrefix(redisKeyPrefix: string): string {
  return `${redisKeyPrefix}bull`;
}

/**
 * Connection options for a Queue or Worker that BullMQ itself opens and closes. On Redis a producer
 * fails fast while Redis is down (an API request never waits on it; an outbox sweep enqueues later)
 * and a worker blocks and reconnects, as BullMQ requires. On PostgreSQL each client gets a small pool
 * of its own in the service database, on the server itself (never through a pooler), with BullMQ's
 * tables in their own schema. While tracing is on,
 * a job carries the trace context of the work that added it, and its runs continue that trace.
 */
export function queueClientOptions(settings: CoordinationSettings, role: QueueRole, name: string): QueueClientOptions {
  if (settings.backend === 'postgres') {
    // The server itself: BullMQ sets its schema as a connection option and waits with LISTEN, which a
    // transaction-mode pooler can carry neither of.
    const db = settings.directDatabase;
    const pool = {
      host: db.host,
      port: db.port,
      user: db.user,
      password: db.password,
      database: db.database,
      // Opened on demand and closed when idle: a busy producer or worker needs about ten (fewer
      // measurably throttled the bench's sendMessage and drain), a quiet queue holds one or two.
      max: QUEUE_POOL_MAX,
      application_name: name,
      connectionTimeoutMillis: 5000,
      schema: QUEUE_SCHEMA,
    };
    return { connection: pool as unknown as ConnectionOptions, ...queueTelemetry() };
  }
  const redis: RedisOptions =
    role === 'worker'
      ? { connectionName: name, maxRetriesPerRequest: null }
      : { connectionName: name, maxRetriesPerRequest: 1, enableOfflineQueue: false };
  return {
    connection: { url: settings.redisUrl, ...redis },
    prefix: queueKeyPrefix(settings.redisKeyPrefix),
    ...queueTelemetry(),
  };
}

/**
 * How long an idle worker waits for a job before it looks again, in seconds (BullMQ's `drainDelay`).
 * On Redis BullMQ's 5 s: each look is one blocking command. On PostgreSQL each look is four statements
 * (claim, the no-job signal, the waiting-job check, the next delayed job), and the wait is a `LISTEN`
 * that ends at once on every `NOTIFY` of the queue: BullMQ's PostgreSQL functions notify on every add
 * (delayed or not), every move to the delayed set (a retry's backoff, a step or a deferral that calls
 * `moveToDelayed`), every promotion, changed delay, stalled job moved back and scheduler change, in
 * whichever process. Each wait is also timed to end at the next delayed job it reads when it starts,
 * so a delayed job is taken at its due time whichever process delayed it, and the look only guards a
 * notification that was lost, which BullMQ also covers by listening again whenever it rebuilds its
 * listening connection. Set on every worker of the apps: the periodic work's, the redrive worker's
 * and the webhook worker's.
 */
const POSTGRES_IDLE_WAIT_SECONDS = 60;

/** The wait options of a worker (see POSTGRES_IDLE_WAIT_SECONDS); on Redis BullMQ's own. */
export function workerWaitOptions(backend: CoordinationBackend): { drainDelay?: number } {
  return backend === 'postgres' ? { drainDelay: POSTGRES_IDLE_WAIT_SECONDS } : {};
}
