import {
  createTestDatabase,
  partitionDeliveryTablesByDay,
  TestDatabase,
  testDatabaseSettings,
  testDataSource,
} from '@app/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Database, poolConfig } from '@app/platform';
import { escapeLiteral, Pool, QueryConfig, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { AttemptRecord, deliverJobFor, DeliveryDomain, DueDelivery, UpdateColumns } from '@app/bot-delivery';
import { botMigrations } from './bot-schema';

describe("the outbox and the attempt log on delivery tables partitioned by day (this release's statements, real PostgreSQL)", () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pool: Database;
  let domain: DeliveryDomain;
  /** The last values of each named statement the pool ran, with its text: to ask PostgreSQL for its plan. */
  const ran = new Map<string, { text: string; values: unknown[] }>();

  beforeAll(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    await dataSource.query(partitionDeliveryTablesByDay({ updatesDaysBack: 7, deliveriesDaysBack: 7, daysAhead: 2 }));
    const pg = new Pool(poolConfig(testDatabaseSettings(database.name, 4)));
    const query = pg.query.bind(pg) as (config: QueryConfig) => Promise<QueryResult>;
    pg.query = ((config: QueryConfig) => {
      if (config.name) ran.set(config.name, { text: config.text, values: config.values ?? [] });
      return query(config);
    }) as typeof pg.query;
    pool = new Database(pg);
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

  /** A value as PostgreSQL reads it from text: an array as an array literal of quoted elements or NULLs. */
  const textOf = (value: unknown): string =>
    Array.isArray(value)
      ? `{${value.map((element) => (element === null ? 'NULL' : `"${String(element).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
      : String(value);

  type PlanNode = {
    'Node Type': string;
    'Relation Name'?: string;
    Alias?: string;
    'Actual Rows'?: number;
    'Actual Loops'?: number;
    'Rows Removed by Filter'?: number;
    Plans?: PlanNode[];
  };

  /**
   * The generic plan of the last run of the named statement with its values; with `analyze`, run once
   * more inside a transaction rolled back, with what each node read.
   */
  async function genericPlan(statement: string, analyze = false): Promise<PlanNode> {
    const { text, values } = ran.get(statement)!;
    const runner = dataSource.createQueryRunner();
    try {
      await runner.query(`SET plan_cache_mode = force_generic_plan`);
      await runner.query(`PREPARE planned AS ${text}`);
      // EXECUTE takes no bound parameters: each value goes in as the literal pg would have sent.
      const literals = values.map((value) => (value === null ? 'NULL' : escapeLiteral(textOf(value))));
      await runner.startTransaction();
      const [{ 'QUERY PLAN': plan }] = await runner.query(
        `EXPLAIN (FORMAT JSON${analyze ? ', ANALYZE' : ''}) EXECUTE planned(${literals.join(', ')})`,
      );
      return plan[0].Plan;
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.query(`DEALLOCATE ALL`);
      await runner.release();
    }
  }

  /** The scan nodes of `plan` over the partitions of `table` under the statement's alias `alias`. */
  function scansOf(plan: PlanNode, table: string, alias: string): PlanNode[] {
    const scans: PlanNode[] = [];
    const walk = (node: PlanNode) => {
      const aliased = node.Alias === alias || node.Alias?.startsWith(`${alias}_`);
      if (node['Node Type'].includes('Scan') && aliased && node['Relation Name']?.startsWith(`${table}_`)) {
        scans.push(node);
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan);
    return scans;
  }

  /**
   * The partitions of `table`, under the statement's alias `alias`, that the last run of the named
   * statement reads with its values in a generic plan: the days left after pruning when it starts (a
   * custom plan, which PostgreSQL may pick instead, prunes the same days while planning).
   */
  async function partitionsRead(statement: string, table: string, alias: string): Promise<string[]> {
    const scans = scansOf(await genericPlan(statement), table, alias);
    return [...new Set(scans.map((scan) => scan['Relation Name']!))].sort();
  }

  /** The rows of `table` that the named statement's generic plan reads when run again, kept or filtered out. */
  async function rowsRead(statement: string, table: string, alias: string): Promise<number> {
    const scans = scansOf(await genericPlan(statement, true), table, alias);
    const read = (scan: PlanNode) =>
      ((scan['Actual Rows'] ?? 0) + (scan['Rows Removed by Filter'] ?? 0)) * (scan['Actual Loops'] ?? 0);
    return scans.reduce((sum, scan) => sum + read(scan), 0);
  }

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

  it("reads a job's delivery from the delivery's day alone, and records its attempt", async () => {
    const botId = await bot('webhook');
    const updateId = randomUUID();
    const [written] = await domain.writeOutbox(pool, updates(botId, [updateId], await daysAgo(3)));
    const job = deliverJobFor({
      id: written.delivery_id!,
      series: 1,
      bot_id: botId,
      created_at: written.delivery_created_at!,
    });
    const day = written.delivery_created_at!.toISOString().slice(0, 10).replace(/-/g, '');

    const [due] = await domain.loadDue([job]);
    expect(due).toMatchObject({ id: written.delivery_id });
    expect(await partitionsRead('bot_deliveries_load_many', 'webhook_deliveries', 'd')).toEqual([
      `webhook_deliveries_${day}`,
    ]);

    expect(await domain.recordAttempts([attempt(due as DueDelivery, 'succeeded')])).toEqual([true]);
    const [{ acknowledged }] = await dataSource.query(`SELECT acknowledged FROM updates WHERE update_id = $1`, [
      updateId,
    ]);
    expect(acknowledged).toBe(true);
  });

  it('reads the delivery of a job from an older producer, which carries no day, from every day', async () => {
    const botId = await bot('webhook');
    const [written] = await domain.writeOutbox(pool, updates(botId, [randomUUID()], await daysAgo(5)));
    const olderJob = { deliveryId: written.delivery_id!, series: 1, priorAttempts: 0, botId };

    expect(await domain.loadDue([olderJob])).toEqual([expect.objectContaining({ id: written.delivery_id })]);
    const days = await partitionsRead('bot_deliveries_load_many', 'webhook_deliveries', 'd');
    expect(days.length).toBeGreaterThan(7);
  });

  it("finds nothing for a job whose day is not its delivery's: the day bounds the look-up", async () => {
    const botId = await bot('webhook');
    const [written] = await domain.writeOutbox(pool, updates(botId, [randomUUID()], await daysAgo(2)));
    const elsewhere = { deliveryId: written.delivery_id!, series: 1, priorAttempts: 0, createdAt: await daysAgo(5) };

    expect(await domain.loadDue([elsewhere])).toEqual(['gone']);
  });

  it('records a batch of attempts by reading its own deliveries, however many other deliveries are open', async () => {
    const botId = await bot('webhook');
    // The backlog of two days' outage of a receiver, and statistics that know it, as autovacuum's would.
    await dataSource.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, created_at)
       SELECT $1::varchar, g, gen_random_uuid(), 'message', '{}', 'retrying',
              now() - make_interval(mins => g)
         FROM generate_series(1, 3000) g`,
      [botId],
    );
    await dataSource.query(`ANALYZE webhook_deliveries`);
    const batch: Array<{ id: string }> = await dataSource.query(
      `SELECT id FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq LIMIT 5`,
      [botId],
    );
    const jobs = batch.map(({ id }) => ({ deliveryId: id, series: 1, priorAttempts: 0, botId }));
    const due = (await domain.loadDue(jobs)) as DueDelivery[];

    expect(await domain.recordAttempts(due.map((delivery) => attempt(delivery, 'retrying')))).toEqual(
      batch.map(() => true),
    );
    // The same statement again (it moves nothing now). A day of a few hundred rows may be read whole,
    // the cheap plan for it; a day of the backlog is read by key, so most of the 3 000 stay unread.
    expect(await rowsRead('bot_deliveries_record_attempts', 'webhook_deliveries', 'd')).toBeLessThan(1_500);
  });
});
