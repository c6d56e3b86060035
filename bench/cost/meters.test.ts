/**
 * Checks of the cost row's meters, which would be wrong in silence (not part of `npm test`):
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/cost/meters.test.ts
 * They need the local PostgreSQL and read its processes from /proc, as the bench does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from 'pg';
import { PG } from '../lib/db';
import { backendCpuBetween, backendCpuMicros, growth, postgresCpuMicros, walBytesBetween, walLsn } from './meters';

async function withPostgres<T>(work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ ...PG, database: 'postgres' });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/**
 * Keeps this backend busy for `ms` of wall time: on a loaded machine it gets only part of a core, so the
 * checks below ask for a tenth of that time, far above the 0 a broken meter reads.
 */
async function spin(db: Client, ms: number): Promise<void> {
  await db.query(
    `DO $$ DECLARE t timestamptz := clock_timestamp(); x bigint := 0;
       BEGIN WHILE clock_timestamp() < t + make_interval(secs => ${ms / 1000}) LOOP x := x + 1; END LOOP; END $$`,
  );
}

test("the server's CPU counts a backend's work, also after the backend has ended", async () => {
  const before = postgresCpuMicros();
  await withPostgres((db) => spin(db, 1000));
  // The backend has exited: its time is now in the postmaster's reaped children.
  const after = postgresCpuMicros();
  assert.ok(after - before >= 100_000, `expected ≥ 100 ms of server CPU, got ${(after - before) / 1000} ms`);
});

test("a database's backends are metered by pid, and one that connected meanwhile counts whole", async () => {
  await withPostgres(async (db) => {
    const before = await backendCpuMicros(db, 'postgres');
    const [pid] = (await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows.map((row) => row.pid);
    assert.ok(before.has(pid));
    await spin(db, 1000);
    const { micros, lost } = backendCpuBetween(before, await backendCpuMicros(db, 'postgres'));
    assert.ok(micros >= 100_000, `expected ≥ 100 ms of backend CPU, got ${micros / 1000} ms`);
    assert.equal(lost, 0);
  });
  assert.deepEqual(
    backendCpuBetween(
      new Map([
        [1, 100],
        [2, 50],
      ]),
      new Map([
        [1, 400],
        [3, 70],
      ]),
    ),
    { micros: 370, lost: 1 },
  );
});

test('WAL bytes between two positions count what was written in between', async () => {
  await withPostgres(async (db) => {
    const from = await walLsn(db);
    // A logical message is written to WAL and to nothing else: no table of the server changes.
    await db.query(`SELECT pg_logical_emit_message(false, 'bench-cost-check', repeat('x', 100000))`);
    const bytes = await walBytesBetween(db, from, await walLsn(db));
    assert.ok(bytes >= 100_000, `expected ≥ 100 000 WAL bytes, got ${bytes}`);
  });
});

test('growth lists the tables that grew, largest first, and totals them', () => {
  const before = new Map([
    ['a', 100],
    ['b', 100],
    ['c', 100],
  ]);
  const after = new Map([
    ['a', 100],
    ['b', 300],
    ['c', 150],
    ['d', 1000],
  ]);
  assert.deepEqual(growth(before, after), {
    total: 1250,
    tables: [
      ['d', 1000],
      ['b', 200],
      ['c', 50],
    ],
  });
});
