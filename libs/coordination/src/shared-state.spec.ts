import { Client } from 'pg';
import { rateLimitTableMigration } from '@app/rate-limits';
import { createTestDatabase, TestDatabase, testDatabaseSettings, waitUntil } from '@app/testing';
import type { CoordinationSettings } from './coordination-settings';
import { channelBusFor, rateLimitStoreFor } from './shared-state.module';

describe('the PostgreSQL-only mode behind a transaction-mode pooler', () => {
  let database: TestDatabase;
  let settings: CoordinationSettings;

  beforeAll(async () => {
    database = await createTestDatabase('ratelimits', [rateLimitTableMigration('CreateRateLimits1796000000000')]);
    const server = testDatabaseSettings(database.name, 2);
    // DB_HOST:DB_PORT names a port where nothing answers: whatever goes there fails at once.
    settings = {
      backend: 'postgres',
      redisUrl: 'redis://127.0.0.1:1',
      redisKeyPrefix: '',
      database: { ...server, port: 1 },
      directDatabase: server,
      connectionName: 'shared-state-direct',
    };
  });

  afterAll(() => database.drop());

  it('counts rate limits and carries wake-ups on the server itself (DB_DIRECT_HOST), never through the pooler', async () => {
    const store = rateLimitStoreFor(settings, undefined);
    const bus = channelBusFor(settings, undefined);
    try {
      // Counted in the table: the in-memory stand-in of an unreachable store writes no row.
      await store.limiter({ keyPrefix: 'direct', points: 2, duration: 60 }).consume('caller');
      const counted = new Client({ ...settings.directDatabase });
      await counted.connect();
      try {
        const { rows } = await counted.query(`SELECT points FROM rate_limits WHERE key = 'direct:caller'`);
        expect(rows).toEqual([{ points: 1 }]);
      } finally {
        await counted.end();
      }

      const received: string[] = [];
      await bus.subscribe('direct_wake', (payload) => received.push(payload));
      await bus.publish('direct_wake', 'hello');
      await waitUntil(() => received.length > 0, 'the NOTIFY to arrive');
      expect(received).toEqual(['hello']);
    } finally {
      await Promise.all([store.close(), bus.close()]);
    }
  });
});
