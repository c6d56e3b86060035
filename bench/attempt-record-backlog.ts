/**
 * The dispatcher's attempt record against the open backlog: delivery tables partitioned by day as
 * production keeps them (31 days of the delivery log, 7 ahead), `perDay` deliveries a day, of which
 * those of the last hours are still open (a receiver that has been failing for that long), the rest
 * succeeded. Times the record of a batch of five of them, with the backlog of 12 hours and then of 1,
 * each on a connection of its own after ANALYZE, as autovacuum would leave the statistics. A statement
 * whose cost follows the backlog slows the drain of exactly the backlog it is meant to clear.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/attempt-record-backlog.ts [perDay]
 */
import { DeliveryDomain } from '@app/bot-delivery';
import { Database, poolConfig } from '@app/platform';
import { createTestDatabase, partitionDeliveryTablesByDay, testDatabaseSettings } from '@app/testing';
import { Pool } from 'pg';
import { botMigrations } from '../apps/bot-dispatcher/test/bot-schema';
import { BENCH_BOT, insertWebhookBot, jobsFor, recordsThatMoveNothing } from './lib/delivery-batch';

const BATCH = 5;
const RUNS = 400;
const HOUR_MS = 3_600_000;

async function seed(pool: Pool, perDay: number, openHours: number): Promise<void> {
  await pool.query(partitionDeliveryTablesByDay({ updatesDaysBack: 2, deliveriesDaysBack: 31, daysAhead: 7 }));
  await insertWebhookBot(pool, 'backlog');
  const stepMs = 86_400_000 / perDay;
  await pool.query(
    `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, created_at)
     SELECT $1, g, gen_random_uuid(), 'message', '{}',
            CASE WHEN g * $2::float8 < $3::float8 THEN 'retrying' ELSE 'succeeded' END,
            now() - make_interval(secs => g * $2::float8 / 1000)
       FROM generate_series(1, floor((31 * 86400000::float8 - $4::float8) / $2::float8)::bigint) g`,
    [BENCH_BOT, stepMs, openHours * HOUR_MS, HOUR_MS],
  );
}

/** Closes the backlog down to its last `openHours` hours, as the deliveries before them succeeded. */
async function shrinkBacklog(pool: Pool, openHours: number): Promise<void> {
  await pool.query(
    `UPDATE webhook_deliveries SET status = 'succeeded'
      WHERE status = 'retrying' AND created_at < now() - make_interval(hours => $1::int)`,
    [openHours],
  );
  await pool.query('VACUUM ANALYZE webhook_deliveries');
}

/** Median microseconds of recording attempts that move nothing (a series no delivery has). */
async function timeRecord(pool: Pool, domain: DeliveryDomain): Promise<{ open: number; micros: number }> {
  const rows = (
    await pool.query(
      `SELECT id, created_at FROM webhook_deliveries
        WHERE status = 'retrying' AND created_at > now() - interval '1 hour' LIMIT $1`,
      [BATCH],
    )
  ).rows as Array<{ id: string; created_at: Date }>;
  const records = await recordsThatMoveNothing(domain, jobsFor(rows));
  const micros: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.hrtime.bigint();
    await domain.recordAttempts(records);
    micros.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  const [{ open }] = (
    await pool.query(`SELECT count(*)::int AS open FROM webhook_deliveries WHERE status = 'retrying'`)
  ).rows;
  return { open, micros: [...micros].sort((a, b) => a - b)[RUNS >> 1] };
}

async function main(): Promise<void> {
  const perDay = Number(process.argv[2] ?? 100_000);
  const database = await createTestDatabase('bot', await botMigrations());
  // One connection per backlog: each statement is planned on one backend, as a pooled one would be, and
  // settles on the plan that backlog's statistics give.
  const connect = () => new Pool(poolConfig(testDatabaseSettings(database.name, 1)));
  try {
    const seeding = connect();
    await seed(seeding, perDay, 12);
    await seeding.query('ANALYZE');
    await seeding.end();
    for (const openHours of [12, 1]) {
      const pool = connect();
      try {
        if (openHours !== 12) await shrinkBacklog(pool, openHours);
        const { open, micros } = await timeRecord(pool, new DeliveryDomain(new Database(pool)));
        console.log(`${perDay} deliveries a day, ${open} open: ${micros.toFixed(0)} µs per attempt record (median)`);
      } finally {
        await pool.end();
      }
    }
  } finally {
    await database.drop();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
