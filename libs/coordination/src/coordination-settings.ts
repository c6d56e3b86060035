import type { CoordinationBackend, DatabaseSettings, ServiceConfig } from '@app/platform';
import { databaseSettings } from '@app/platform';

/** What a process needs to reach its coordination backend, whichever it is. */
export interface CoordinationSettings {
  backend: CoordinationBackend;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue (Redis mode); PostgreSQL namespaces by database and schema. */
  redisKeyPrefix: string;
  /** The service's own database, which also holds the PostgreSQL-only mode's queues, counters and channels. */
  database: DatabaseSettings;
  /** Names this process's connections: the Redis client name, PostgreSQL's application_name. */
  connectionName: string;
}

export function coordinationSettings(config: ServiceConfig, connectionName: string): CoordinationSettings {
  return {
    backend: config.coordinationBackend,
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    database: databaseSettings(config),
    connectionName,
  };
}
