import {
  createTestDatabase,
  partitionDeliveryTablesByDay,
  TestDatabase,
  testDatabaseSettings,
  testDataSource,
} from '@app/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Database, poolConfig } from '@app/platform';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AttemptRecord, DeliveryDomain, DueDelivery, UpdateColumns } from '@app/bot-delivery';
import { botMigrations } from './bot-schema';

describe("the outbox and the attempt log on delivery tables partitioned by day (this release's statements, real PostgreSQL)", () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pool: Database;
  let domain: DeliveryDomain;

  beforeAll(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    await dataSource.query(partitionDeliveryTablesByDay({ updatesDaysBack: 7, deliveriesDaysBack: 7, daysAhead: 2 }));
    pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 4))));
    domain = new DeliveryDomain(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await dataSource?.destroy();
    await database?.drop();
  });

  async function bot(mode: 'webhook' | 'polling'): Promise<string> {
    const id = randomBytes(12).toString('hex');
    await dataSource.query(
      `WITH bot AS (
         INSERT INTO bots (id, owner_id, name, review_status, status)
         VALUES ($1::varchar, 'owner', 'partition test', 'approved', 'enabled') RETURNING id)
       INSERT INTO bot_delivery_settings (bot_id, delivery_mode, webhook_url, webhook_secret_ciphertext)
       SELECT id, $2::varchar, CASE WHEN $2 = 'webhook' THEN 'https://hooks.example/' || id END,
              CASE WHEN $2 = 'webhook' THEN 'sealed' END FROM bot`,
      [id, mode],
    );
    return id;
  }

  const updates = (botId: string, ids: string[], createdAt: string | null): UpdateColumns => ({
    update_ids: ids,
    update_bot_ids: ids.map(() => botId),
    update_types: ids.map(() => 'message'),
    update_payloads: ids.map((id) => JSON.stringify({ update_id: id })),
    update_created_ats: ids.map(() => createdAt),
  });

  const daysAgo = async (days: number): Promise<string> => {
    const [{ at }] = await dataSource.query(`SELECT (now() - make_interval(days => $1::int))::text AS at`, [days]);
    return new Date(at).toISOString();
  };

  const attempt = (delivery: DueDelivery, outcome: AttemptRecord['outcome']): AttemptRecord => ({
    delivery,
    attempt: delivery.attempts + 1,
    outcome,
    retryDelayMs: outcome === 'retrying' ? 60_000 : 0,
    result: { ok: outcome === 'succeeded', statusCode: outcome === 'succeeded' ? 200 : 502, latencyMs: 5, error: null },
  });

  it('is partitioned by day and keeps the indexes the scans use', async () => {
    const indexes = await dataSource.query(
      `SELECT tablename, indexname FROM pg_indexes
        WHERE indexname IN ('updates_pending', 'webhook_deliveries_due', 'webhook_deliveries_bot')
        ORDER BY indexname`,
    );
    expect(indexes).toEqual([
      { tablename: 'updates', indexname: 'updates_pending' },
      { tablename: 'webhook_deliveries', indexname: 'webhook_deliveries_bot' },
      { tablename: 'webhook_deliveries', indexname: 'webhook_deliveries_due' },
    ]);
    const [{ partitioned }] = await dataSource.query(
      `SELECT count(*)::int AS partitioned FROM pg_partitioned_table
        WHERE partrelid IN ('updates'::regclass, 'webhook_deliveries'::regclass, 'webhook_delivery_attempts'::regclass)`,
    );
    expect(partitioned).toBe(3);
  });

  it('writes an Update and its delivery into the day of the event, and a repeat of the event into neither', async () => {
    const botId = await bot('webhook');
    const updateId = randomUUID();
    const recordedAt = await daysAgo(2);

    const [written] = await domain.writeOutbox(pool, updates(botId, [updateId], recordedAt));
    expect(written).toMatchObject({ update_id: updateId, delivery_id: expect.any(String) });
    expect(await domain.writeOutbox(pool, updates(botId, [updateId], recordedAt))).toEqual([]);

    const rows = await dataSource.query(
      `SELECT u.tableoid::regclass::text AS update_day, d.tableoid::regclass::text AS delivery_day
         FROM updates u JOIN webhook_deliveries d USING (update_id) WHERE u.update_id = $1`,
      [updateId],
    );
    const day = recordedAt.slice(0, 10).replace(/-/g, '');
    expect(rows).toEqual([{ update_day: `updates_${day}`, delivery_day: `webhook_deliveries_${day}` }]);
  });

  it('hands out, confirms and counts the Updates of a polling bot', async () => {
    const botId = await bot('polling');
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const written = await domain.writeOutbox(pool, updates(botId, ids, null));
    expect(written.map((row) => row.delivery_id)).toEqual([null, null, null]);

    const pending = await domain.pendingUpdates(botId, 0, 24, 100);
    expect(pending).toHaveLength(3);
    await domain.acknowledgeBelow(botId, Number(pending[1].update_seq));
    expect(await domain.pendingCount(botId, false, 24)).toBe(2);
    await domain.acknowledgeAllButLast(botId, 1);
    expect(await domain.pendingUpdates(botId, 0, 24, 100)).toEqual([pending[2]]);
  });

  it('gives deliveries to the backlog of a bot switching to webhook mode and to orphaned Updates', async () => {
    const botId = await bot('polling');
    await domain.writeOutbox(pool, updates(botId, [randomUUID(), randomUUID()], null));
    await dataSource.query(
      `UPDATE bot_delivery_settings SET delivery_mode = 'webhook',
      webhook_url = 'https://hooks.example/x', webhook_secret_ciphertext = 'sealed' WHERE bot_id = $1`,
      [botId],
    );

    expect(await domain.deliverBacklog(pool, botId, 24)).toHaveLength(2);

    const orphan = randomUUID();
    await dataSource.query(
      `INSERT INTO updates (update_id, bot_id, type, payload, created_at) VALUES ($1, $2, 'message', '{}', now() - interval '1 hour')`,
      [orphan, botId],
    );
    const adopted = await domain.adoptOrphans(1_000, 100);
    expect(adopted.filter((delivery) => delivery.bot_id === botId)).toHaveLength(1);
  });

  it('records attempts beside their delivery, confirms its Update on success, and redelivers it', async () => {
    const botId = await bot('webhook');
    const updateId = randomUUID();
    const [written] = await domain.writeOutbox(pool, updates(botId, [updateId], await daysAgo(1)));
    const deliveryId = written.delivery_id!;
    const load = async () =>
      (await domain.loadDue([{ deliveryId, series: 1, priorAttempts: 0, botId }]))[0] as DueDelivery;

    expect(await domain.recordAttempts([attempt(await load(), 'retrying')])).toEqual([true]);
    expect(await domain.recordAttempts([attempt(await load(), 'succeeded')])).toEqual([true]);

    const [row] = await dataSource.query(
      `SELECT d.status, u.acknowledged, count(a.*)::int AS attempts,
              bool_and(a.tableoid::regclass::text = 'webhook_delivery_attempts_' || to_char(d.created_at, 'YYYYMMDD'))
                AS beside_delivery
         FROM webhook_deliveries d JOIN updates u USING (update_id) JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
        WHERE d.id = $1 GROUP BY d.status, u.acknowledged`,
      [deliveryId],
    );
    expect(row).toEqual({ status: 'succeeded', acknowledged: true, attempts: 2, beside_delivery: true });
    expect((await domain.attemptsOf(deliveryId)).map((a) => a.attempt)).toEqual([1, 2]);

    await dataSource.query(
      `UPDATE webhook_deliveries SET status = 'dead_letter', dead_letter_at = now() WHERE id = $1`,
      [deliveryId],
    );
    expect(await domain.redeliver(pool, deliveryId)).toHaveLength(1);
    expect(await domain.deliveryOfUpdate(pool, botId, updateId)).toMatchObject({ status: 'pending', series: 2 });
  });
});
