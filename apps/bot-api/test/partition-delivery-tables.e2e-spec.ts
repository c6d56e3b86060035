import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createEmptyDatabase, TestDatabase, testDatabaseSettings, testDataSource } from '@app/testing';
import { poolConfig } from '@app/platform';
import { botMigrations } from '../src/database/migrations';
import { PartitionDeliveryTables1796500000000 } from '../src/database/migrations/1796500000000-PartitionDeliveryTables';

/** Release 1.1.0's migrations: everything before the partitioning. */
const BEFORE = botMigrations.slice(0, botMigrations.indexOf(PartitionDeliveryTables1796500000000));
const TABLES = ['updates', 'webhook_deliveries', 'webhook_delivery_attempts'];

/** A bot database migrated to the release before, with `rows` Updates, deliveries and attempts of the last day. */
async function populatedDatabase(service: string, rows: number): Promise<{ database: TestDatabase; botId: string }> {
  const database = await createEmptyDatabase(service);
  const before = testDataSource(database.name, BEFORE);
  await before.initialize();
  try {
    await before.runMigrations();
    const botId = randomBytes(12).toString('hex');
    await before.query(`INSERT INTO bots (id, owner_id, name) VALUES ($1, 'owner', 'partitioning')`, [botId]);
    await before.query(
      `INSERT INTO updates (update_id, bot_id, type, payload, created_at)
       SELECT gen_random_uuid(), $1, 'message', '{}', now() - i * interval '20 seconds' FROM generate_series(1, $2) i`,
      [botId, rows],
    );
    await before.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, created_at)
       SELECT bot_id, update_seq, update_id, type, payload, created_at FROM updates`,
    );
    // A tenth of the attempts as release 1.0.0 recorded them, without their delivery's day.
    await before.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, series, attempt, latency_ms, delivery_created_at)
       SELECT id, 1, 1, 5, CASE WHEN update_seq % 10 <> 0 THEN created_at END FROM webhook_deliveries`,
    );
    return { database, botId };
  } finally {
    await before.destroy();
  }
}

/** Runs what is pending (the partitioning and the console's index by day), as the migration Job does. */
async function migrate(database: string): Promise<void> {
  const dataSource = testDataSource(database, botMigrations);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
}

/** The previous release's outbox and attempt log, written in a loop until `stop` resolves; answers what it wrote. */
async function writeAsThePreviousRelease(pool: Pool, botId: string, stop: Promise<unknown>) {
  let done = false;
  void stop.finally(() => (done = true));
  const written: string[] = [];
  while (!done) {
    const updateId = randomUUID();
    await pool.query(
      `WITH u AS (INSERT INTO updates (update_id, bot_id, type, payload) VALUES ($1, $2, 'message', '{}')
                  ON CONFLICT DO NOTHING RETURNING update_seq, update_id, created_at),
            d AS (INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, created_at)
                  SELECT $2, update_seq, update_id, 'message', '{}', created_at FROM u
                  ON CONFLICT DO NOTHING RETURNING id, created_at)
       INSERT INTO webhook_delivery_attempts (delivery_id, series, attempt, latency_ms, delivery_created_at)
       SELECT id, 1, 1, 3, created_at FROM d`,
      [updateId, botId],
    );
    written.push(updateId);
  }
  return written;
}

describe('the migration that partitions the delivery tables by day (real PostgreSQL)', () => {
  let database: TestDatabase | undefined;
  let dataSource: DataSource | undefined;
  afterEach(async () => {
    await dataSource?.destroy();
    await database?.drop();
    dataSource = database = undefined;
  });

  it('converts populated tables while the previous release writes to them, keeping every row and refusing none', async () => {
    const seeded = await populatedDatabase('bot_part', 3000);
    database = seeded.database;
    const pool = new Pool(poolConfig(testDatabaseSettings(database.name, 2)));
    try {
      const migration = migrate(database.name);
      const [, written] = await Promise.all([migration, writeAsThePreviousRelease(pool, seeded.botId, migration)]);
      expect(written.length).toBeGreaterThan(0);

      dataSource = testDataSource(database.name);
      await dataSource.initialize();
      const kinds = await dataSource.query(`SELECT relname, relkind FROM pg_class WHERE relname = ANY($1) ORDER BY 1`, [
        TABLES,
      ]);
      expect(kinds.map((row: { relkind: string }) => row.relkind)).toEqual(['p', 'p', 'p']);
      for (const table of TABLES) {
        const [{ count }] = await dataSource.query(`SELECT count(*)::int AS count FROM ${table}`);
        expect({ table, count }).toEqual({ table, count: 3000 + written.length });
      }
      const [{ landed }] = await dataSource.query(
        `SELECT count(*)::int AS landed FROM updates WHERE update_id = ANY($1::uuid[])`,
        [written],
      );
      expect(landed).toBe(written.length);
      // Every attempt, the ones recorded without their delivery's day included, references it by day.
      const [{ joined }] = await dataSource.query(
        `SELECT count(*)::int AS joined FROM webhook_delivery_attempts a
           JOIN webhook_deliveries d ON d.id = a.delivery_id AND d.created_at = a.delivery_created_at`,
      );
      expect(joined).toBe(3000 + written.length);
    } finally {
      await pool.end();
    }
  });

  it('leaves the keys with the day, the legacy partition up to the cutover and a week of days after it', async () => {
    database = (await populatedDatabase('bot_part', 10)).database;
    await migrate(database.name);
    dataSource = testDataSource(database.name);
    await dataSource.initialize();

    const keys = await dataSource.query(
      `SELECT conrelid::regclass::text AS "table", contype AS type, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE conrelid = ANY($1::regclass[]) AND contype IN ('p', 'u', 'f') AND conparentid = 0
        ORDER BY 1, 2, 3`,
      [TABLES],
    );
    expect(keys).toEqual([
      { table: 'updates', type: 'f', definition: 'FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE' },
      { table: 'updates', type: 'p', definition: 'PRIMARY KEY (update_seq, created_at)' },
      { table: 'updates', type: 'u', definition: 'UNIQUE (update_id, created_at)' },
      {
        table: 'webhook_deliveries',
        type: 'f',
        definition: 'FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE',
      },
      { table: 'webhook_deliveries', type: 'p', definition: 'PRIMARY KEY (id, created_at)' },
      { table: 'webhook_deliveries', type: 'u', definition: 'UNIQUE (update_id, created_at)' },
      {
        table: 'webhook_delivery_attempts',
        type: 'f',
        definition:
          'FOREIGN KEY (delivery_id, delivery_created_at) REFERENCES webhook_deliveries(id, created_at) ON DELETE CASCADE',
      },
      { table: 'webhook_delivery_attempts', type: 'p', definition: 'PRIMARY KEY (id, delivery_created_at)' },
      {
        table: 'webhook_delivery_attempts',
        type: 'u',
        definition: 'UNIQUE (delivery_id, delivery_created_at, series, attempt)',
      },
    ]);

    const partitions = await dataSource.query(
      `SELECT c.relname AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'updates'::regclass ORDER BY c.relname`,
    );
    const legacy = partitions.find((row: { partition: string }) => row.partition === 'updates_legacy');
    const cutover = new Date(/TO \('([^']+)'\)/.exec(legacy.bound)![1]);
    expect(cutover.getUTCHours()).toBe(0);
    expect(cutover.getTime() - Date.now()).toBeGreaterThan(3_600_000);
    const days = partitions.filter((row: { partition: string }) => row.partition !== 'updates_legacy');
    const first = new Date(/FROM \('([^']+)'\)/.exec(days[0].bound)![1]);
    expect(first).toEqual(cutover);
    const today = new Date(new Date().toISOString().slice(0, 10));
    expect(days.at(-1).partition).toBe(
      `updates_${new Date(today.getTime() + 7 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}`,
    );

    // The periodic task's function adds the days missing, and only those.
    const [{ created }] = await dataSource.query(`SELECT create_delivery_days_ahead(9) AS created`);
    expect(created).toBe(6);
    const [{ again }] = await dataSource.query(`SELECT create_delivery_days_ahead(9) AS again`);
    expect(again).toBe(0);
  });

  it('refuses a repeat of an Update of the same time, and numbers attempts on from the last one', async () => {
    const seeded = await populatedDatabase('bot_part', 10);
    database = seeded.database;
    await migrate(database.name);
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    const [{ last }] = await dataSource.query(`SELECT max(id)::int AS last FROM webhook_delivery_attempts`);

    const updateId = randomUUID();
    const insert = `INSERT INTO updates (update_id, bot_id, type, payload, created_at)
                    VALUES ($1, $2, 'message', '{}', date_trunc('second', now())) ON CONFLICT DO NOTHING RETURNING update_seq`;
    expect(await dataSource.query(insert, [updateId, seeded.botId])).toHaveLength(1);
    expect(await dataSource.query(insert, [updateId, seeded.botId])).toHaveLength(0);

    const [attempt] = await dataSource.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, delivery_created_at, series, attempt, latency_ms)
       SELECT id, created_at, 2, 1, 4 FROM webhook_deliveries LIMIT 1 RETURNING id::int`,
    );
    expect(attempt.id).toBeGreaterThan(last);
  });

  it('goes on where it stopped when run again after a failure', async () => {
    database = (await populatedDatabase('bot_part', 10)).database;
    const blocker = testDataSource(database.name);
    await blocker.initialize();
    // A name the deliveries' swap needs is taken: the migration fails after the Updates are converted.
    await blocker.query(`CREATE TABLE webhook_deliveries_legacy (id int)`);
    await expect(migrate(database.name)).rejects.toThrow(/webhook_deliveries_legacy/);
    const [{ relkind }] = await blocker.query(`SELECT relkind FROM pg_class WHERE relname = 'updates'`);
    expect(relkind).toBe('p');
    // The failed swap leaves no check behind that would refuse the deliveries written from the cutover on.
    const checks = await blocker.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'webhook_deliveries'::regclass AND conname LIKE '%cutover'`,
    );
    expect(checks).toEqual([]);
    await blocker.query(`DROP TABLE webhook_deliveries_legacy`);
    await blocker.destroy();

    await migrate(database.name);
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    const kinds = await dataSource.query(`SELECT relkind FROM pg_class WHERE relname = ANY($1)`, [TABLES]);
    expect(kinds).toEqual([{ relkind: 'p' }, { relkind: 'p' }, { relkind: 'p' }]);
    const [{ count }] = await dataSource.query(`SELECT count(*)::int AS count FROM webhook_delivery_attempts`);
    expect(count).toBe(10);
  });
});
