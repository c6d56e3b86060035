/**
 * The dispatcher's load of a batch of deliveries on delivery tables partitioned by day as production
 * keeps them (two days of Updates, 31 of the delivery log, 7 ahead): a batch whose jobs carry their
 * deliveries' day (read from that day alone) against the same batch from jobs of an older producer,
 * which carry none (read from every day), in turns on one connection, with the attempt record of the
 * same batch beside them. Prints microseconds per statement as the client sees them on 127.0.0.1.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/delivery-lookups.ts [rounds]
 */
import { DeliveryDomain } from '@app/bot-delivery';
import { Database, poolConfig } from '@app/platform';
import { createTestDatabase, partitionDeliveryTablesByDay, testDatabaseSettings } from '@app/testing';
import { Pool } from 'pg';
import { botMigrations } from '../apps/bot-dispatcher/test/bot-schema';
import { BENCH_BOT, insertWebhookBot, jobsFor, recordsThatMoveNothing } from './lib/delivery-batch';

const BATCH = 5;
/** Statements per turn; turns alternate the two kinds of job so a drift of the machine falls on both. */
const PER_TURN = 250;

async function seed(pool: Pool): Promise<void> {
  await pool.query(partitionDeliveryTablesByDay({ updatesDaysBack: 2, deliveriesDaysBack: 31, daysAhead: 7 }));
  await insertWebhookBot(pool, 'lookups');
  // A delivery every three minutes over the 31 days kept: about 15 000 rows, 480 a day.
  await pool.query(
    `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, created_at)
     SELECT $1, g, gen_random_uuid(), 'message', '{}', now() - make_interval(mins => g)
       FROM generate_series(1, 31 * 1440 - 60, 3) g`,
    [BENCH_BOT],
  );
  await pool.query('ANALYZE');
}

async function timed(rounds: number, run: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await run();
  return Number(process.hrtime.bigint() - started) / 1000 / rounds;
}

async function main(): Promise<void> {
  const turns = Number(process.argv[2] ?? 8);
  const database = await createTestDatabase('bot', await botMigrations());
  // One connection: every statement is planned and run on the same backend, as a pooled one would be.
  const pool = new Pool(poolConfig(testDatabaseSettings(database.name, 1)));
  try {
    await seed(pool);
    const domain = new DeliveryDomain(new Database(pool));
    const rows = (
      await pool.query(
        `SELECT id, created_at FROM webhook_deliveries WHERE created_at > now() - interval '1 hour' LIMIT $1`,
        [BATCH],
      )
    ).rows as Array<{ id: string; created_at: Date }>;
    const withDay = jobsFor(rows);
    const withoutDay = withDay.map(({ createdAt: _day, ...job }) => job);
    const records = await recordsThatMoveNothing(domain, withDay);
    const micros = { withDay: [] as number[], withoutDay: [] as number[], record: [] as number[] };
    for (let turn = 0; turn < turns; turn++) {
      const order = turn % 2 === 0 ? (['withDay', 'withoutDay'] as const) : (['withoutDay', 'withDay'] as const);
      for (const kind of order) {
        const jobs = kind === 'withDay' ? withDay : withoutDay;
        micros[kind].push(await timed(PER_TURN, () => domain.loadDue(jobs)));
      }
      micros.record.push(await timed(PER_TURN / 5, () => domain.recordAttempts(records)));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const plans = (await pool.query(`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements`)).rows;
    console.log(`batch of ${BATCH} deliveries of the last hour; ${turns} turns of ${PER_TURN} loads each`);
    console.log(
      `load, jobs with their day:     ${median(micros.withDay).toFixed(0)} µs per statement (median of turns)`,
    );
    console.log(`load, jobs without a day:      ${median(micros.withoutDay).toFixed(0)} µs per statement`);
    console.log(`record of the batch's attempts: ${median(micros.record).toFixed(0)} µs per statement`);
    console.log('plans per prepared statement:', JSON.stringify(plans));
  } finally {
    await pool.end();
    await database.drop();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
