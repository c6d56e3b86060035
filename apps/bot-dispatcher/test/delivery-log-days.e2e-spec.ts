import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import {
  createTestDatabase,
  partitionDay as day,
  partitionDeliveryTablesByDay,
  partitionsOf,
  TestDatabase,
  testDatabaseSettings,
  testDataSource,
} from '@app/testing';
import { Database, poolConfig } from '@app/platform';
import { DeliveryDomain } from '@app/bot-delivery';
import { botMigrations } from './bot-schema';

/** The retention of the delivery log by whole days, with their attempts (real PostgreSQL). */
describe('the delivery log kept DELIVERY_LOG_RETENTION_DAYS by dropping whole days', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pool: Database;
  let domain: DeliveryDomain;
  let botId: string;

  beforeEach(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    // Forty days of the log behind today, as a database that has run the release that long has them.
    await dataSource.query(partitionDeliveryTablesByDay({ updatesDaysBack: 1, deliveriesDaysBack: 40, daysAhead: 1 }));
    pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 2))));
    domain = new DeliveryDomain(pool);
    botId = randomBytes(12).toString('hex');
    await dataSource.query(`INSERT INTO bots (id, owner_id, name) VALUES ($1, 'owner', 'log days')`, [botId]);
  });
  afterEach(async () => {
    await pool?.end();
    await dataSource?.destroy();
    await database?.drop();
  });

  /** A delivery created `daysAgo` (at noon UTC), last changed `changedDaysAgo`, with one attempt. */
  async function delivery(daysAgo: number, status: string, changedDaysAgo = daysAgo): Promise<string> {
    const [{ id }] = await dataSource.query(
      `WITH d AS (
         INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, dead_letter_at,
                                         created_at, updated_at)
         VALUES ($1, 1, gen_random_uuid(), 'message', '{}', $2::varchar, CASE WHEN $2::varchar = 'dead_letter' THEN now() END,
                 date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $3) + interval '12 hours',
                 now() - make_interval(days => $4))
         RETURNING id, created_at)
       INSERT INTO webhook_delivery_attempts (delivery_id, delivery_created_at, series, attempt, latency_ms)
       SELECT id, created_at, 1, 1, 5 FROM d RETURNING delivery_id AS id`,
      [botId, status, daysAgo, changedDaysAgo],
    );
    return id;
  }

  it('drops the days past the retention with their attempts, open deliveries nothing happened to included', async () => {
    const old = await delivery(35, 'succeeded');
    const stale = await delivery(33, 'pending');
    const recent = await delivery(10, 'dead_letter');

    const outcome = await domain.dropExpiredLogDays(30);

    expect(outcome.kept).toEqual([]);
    expect(outcome.dropped).toContain(`webhook_deliveries_${day(-35)}`);
    expect(outcome.dropped).toContain(`webhook_deliveries_${day(-33)}`);
    expect(outcome.dropped).not.toContain(`webhook_deliveries_${day(-30)}`);
    expect(await partitionsOf(dataSource, 'webhook_deliveries')).not.toContain(`webhook_deliveries_${day(-31)}`);
    expect(await partitionsOf(dataSource, 'webhook_delivery_attempts')).not.toContain(
      `webhook_delivery_attempts_${day(-35)}`,
    );
    expect(await partitionsOf(dataSource, 'webhook_deliveries')).toContain(`webhook_deliveries_${day(-30)}`);
    const left = await dataSource.query(`SELECT id FROM webhook_deliveries WHERE id = ANY($1)`, [[old, stale, recent]]);
    expect(left).toEqual([{ id: recent }]);
    const attempts = await dataSource.query(`SELECT delivery_id FROM webhook_delivery_attempts`);
    expect(attempts).toEqual([{ delivery_id: recent }]);
    expect(await domain.dropExpiredLogDays(30)).toEqual({ dropped: [], kept: [] });
  });

  it('keeps a day past the retention while one of its deliveries changed within it, attempts and all', async () => {
    const redelivered = await delivery(34, 'dead_letter', 2);
    const beside = await delivery(34, 'succeeded');

    const outcome = await domain.dropExpiredLogDays(30);

    expect(outcome.kept).toEqual([`webhook_deliveries_${day(-34)}`]);
    expect(outcome.dropped).toContain(`webhook_deliveries_${day(-35)}`);
    const left = await dataSource.query(`SELECT id FROM webhook_deliveries ORDER BY id`);
    expect(left.map((row: { id: string }) => row.id).sort()).toEqual([redelivered, beside].sort());
    const [{ attempts }] = await dataSource.query(`SELECT count(*)::int AS attempts FROM webhook_delivery_attempts`);
    expect(attempts).toBe(2);
  });

  it('attaches a day back, its attempts too, when one of its deliveries changed while it was being detached', async () => {
    const touched = await delivery(34, 'dead_letter');
    const partition = `webhook_deliveries_${day(-34)}`;
    // A redelivery landing between the look and the detach: the row changes as soon as the day is detached.
    await dataSource.query(`
      CREATE FUNCTION touch_detached_day() RETURNS event_trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF to_regclass('${partition}') IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = '${partition}'::regclass) THEN
          UPDATE ${partition} SET updated_at = now();
        END IF;
      END $$`);
    await dataSource.query(
      `CREATE EVENT TRIGGER touch_detached_day ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
       EXECUTE FUNCTION touch_detached_day()`,
    );
    try {
      const outcome = await domain.dropExpiredLogDays(30);

      expect(outcome.kept).toEqual([partition]);
      expect(await partitionsOf(dataSource, 'webhook_deliveries')).toContain(partition);
      expect(await partitionsOf(dataSource, 'webhook_delivery_attempts')).toContain(
        `webhook_delivery_attempts_${day(-34)}`,
      );
      const [row] = await dataSource.query(
        `SELECT d.id, count(a.id)::int AS attempts FROM webhook_deliveries d
           JOIN webhook_delivery_attempts a ON a.delivery_id = d.id AND a.delivery_created_at = d.created_at
          GROUP BY d.id`,
      );
      expect(row).toEqual({ id: touched, attempts: 1 });
    } finally {
      await dataSource.query(`DROP EVENT TRIGGER touch_detached_day`);
    }
  });
});
