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
import { botMigrations } from '../src/database/migrations';
import { BotConfig } from '../src/config/bot.config';
import { DeliveryPartitionsTask } from '../src/delivery-partitions/delivery-partitions-task';

describe('the day partitions of the delivery tables (periodic work, real PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pool: Database;
  let task: DeliveryPartitionsTask;

  beforeEach(async () => {
    database = await createTestDatabase('bot', botMigrations);
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    // A database that has run the release for a while: days of Updates behind today, one day ahead.
    await dataSource.query(partitionDeliveryTablesByDay({ updatesDaysBack: 3, deliveriesDaysBack: 3, daysAhead: 1 }));
    pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 2))));
    task = new DeliveryPartitionsTask(
      new DeliveryDomain(pool),
      Object.assign(new BotConfig(), { UPDATES_RETENTION_HOURS: 24 }),
    );
  });
  afterEach(async () => {
    await pool?.end();
    await dataSource?.destroy();
    await database?.drop();
  });

  it('drops whole the days of Updates whose every row is past the retention, and keeps the rest', async () => {
    const botId = randomBytes(12).toString('hex');
    await dataSource.query(`INSERT INTO bots (id, owner_id, name) VALUES ($1, 'owner', 'partitions')`, [botId]);
    await dataSource.query(
      `INSERT INTO updates (update_id, bot_id, type, payload, created_at)
       SELECT gen_random_uuid(), $1, 'message', jsonb_build_object('hours', h), now() - make_interval(hours => h)
         FROM unnest(ARRAY[70, 50, 0]) h`,
      [botId],
    );

    const { dropped } = await task.run();

    expect(dropped).toEqual([`updates_${day(-3)}`, `updates_${day(-2)}`]);
    expect(await partitionsOf(dataSource, 'updates')).not.toContain(`updates_${day(-2)}`);
    expect(await partitionsOf(dataSource, 'updates')).toContain(`updates_${day(-1)}`);
    const left = await dataSource.query(`SELECT (payload->>'hours')::int AS hours FROM updates ORDER BY 1`);
    expect(left).toEqual([{ hours: 0 }]);
    // The delivery log keeps its days: its retention is not the Updates'.
    expect(await partitionsOf(dataSource, 'webhook_deliveries')).toContain(`webhook_deliveries_${day(-3)}`);
    expect((await task.run()).dropped).toEqual([]);
  });

  it('creates a week of days ahead for the three tables, and nothing once they are there, and says how many days are left', async () => {
    expect(await new DeliveryDomain(pool).daysAheadCovered()).toBe(1);
    const { created } = await task.run();

    expect(created).toBe(3 * 6);
    expect(await new DeliveryDomain(pool).daysAheadCovered()).toBe(7);
    for (const parent of ['updates', 'webhook_deliveries', 'webhook_delivery_attempts']) {
      expect(await partitionsOf(dataSource, parent)).toContain(`${parent}_${day(7)}`);
      expect(await partitionsOf(dataSource, parent)).not.toContain(`${parent}_${day(8)}`);
    }
    expect((await task.run()).created).toBe(0);
  });
});
