import { queueClientOptions, queueKeyPrefix } from './queue-connection';
import type { CoordinationSettings } from './coordination-settings';

const settings: CoordinationSettings = {
  backend: 'redis',
  redisUrl: 'redis://127.0.0.1:6379/2',
  redisKeyPrefix: 'staging:',
  database: { host: 'pgbouncer', port: 6432, user: 'bot', password: 'secret', database: 'bot', poolSize: 10 },
  directDatabase: { host: 'db', port: 5433, user: 'bot', password: 'secret', database: 'bot', poolSize: 10 },
  connectionName: 'bot-api',
};

describe('queue connections', () => {
  it('keeps BullMQ keys under the app prefix on Redis', () => {
    expect(queueKeyPrefix('staging:')).toBe('staging:bull');
    expect(queueClientOptions(settings, 'producer', 'q').prefix).toBe('staging:bull');
  });

  it('makes a Redis producer fail fast and a Redis worker wait for the connection', () => {
    expect(queueClientOptions(settings, 'producer', 'q').connection).toMatchObject({
      url: settings.redisUrl,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    expect(queueClientOptions(settings, 'worker', 'q').connection).toMatchObject({ maxRetriesPerRequest: null });
  });

  it("puts PostgreSQL-mode queues in the service database's bullmq schema on the server itself, never the pooler, with no key prefix", () => {
    const options = queueClientOptions({ ...settings, backend: 'postgres' }, 'worker', 'q');
    expect(options.prefix).toBeUndefined();
    expect(options.connection).toMatchObject({ host: 'db', port: 5433, database: 'bot', schema: 'bullmq' });
  });
});
