import type { CoordinationBackend, DatabaseSettings, ServiceConfig } from '@app/platform';
import { databaseSettings, directDatabaseSettings } from '@app/platform';

/** What a process needs to reach its coordination backend, whichever it is. */
export interface CoordinationSettings {
  backend: CoordinationBackend;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue (Redis mode); PostgreSQL namespaces by database and schema. */
  redisKeyPrefix: string;
  /** The service's own database at DB_HOST:DB_PORT, a pooler or the server. */
  database: DatabaseSettings;
  /**
   * The same database on the server itself (DB_DIRECT_HOST, DB_DIRECT_PORT), where the PostgreSQL-only
   * mode keeps its queues, counters and channels: they need sessions (LISTEN, a schema set at connect)
   * or pools of their own that must not wait on the app's.
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
