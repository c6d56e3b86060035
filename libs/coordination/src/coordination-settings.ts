import type { CoordinationBackend, DatabaseSettings, ServiceConfig } from '@app/platform';
import { databaseSettings, directDatabaseSettings } from '@app/platform';

/** What a process needs to reach its coordination backend, whichever it is. */
export interface CoordinationSettings {
  backend: CoordinationBackend;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue (Redis mode); PostgreSQL namespaces by database and schema. */
  redisKeyPrefix: string;
  /**
   * The service's own database, which also holds the PostgreSQL-only mode's queues, counters and
   * channels, at DB_HOST:DB_PORT (a pooler or the server): where the counters and NOTIFY go.
   */
  database: DatabaseSettings;
  /**
   * The same database on the server itself (DB_DIRECT_HOST, DB_DIRECT_PORT): where what needs a
   * session goes, the LISTEN connections and BullMQ's queues (a search_path set at connect, LISTEN).
   */
  directDatabase: DatabaseSettings;
  /** Names this process's connections: the Redis client name, PostgreSQL's application_name. */
  connectionName: string;
}

export function coordinationSettings(config: ServiceConfig, connectionName: string): CoordinationSettings {
  return {
    backend: config.coordinationBackend,
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
    database: databaseSettings(config),
    directDatabase: directDatabaseSettings(config),
    connectionName,
  };
}
