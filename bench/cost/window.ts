import type { Client } from 'pg';
import { connect } from '../lib/db';
import { machineBusyPercentSince, machineCpuTicks, sleep } from '../lib/processes';
import type { SqlCounter } from '../lib/sql-counter';
import {
  backendCpuBetween,
  backendCpuMicros,
  CpuMeter,
  growth,
  postgresCpuMicros,
  readMeters,
  redisCpuMicros,
  relationSizes,
  walBytesBetween,
  walLsn,
} from './meters';

/** A process whose database connection runs through its own counting proxy. */
export interface CountedProcess {
  meter: CpuMeter;
  counter: SqlCounter;
}

/** What one unit of work (a delivered message, a redeem) cost over a window, per process. */
export interface UnitCost {
  units: number;
  seconds: number;
  machineBusyPercent: number;
  /**
   * CPU µs per unit: each app, then PostgreSQL (all server processes: on a shared server other databases'
   * work too), Redis, and the PostgreSQL backends serving the run's own database (this run's work only,
   * without the WAL writer, checkpointer and autovacuum it causes).
   */
  cpuMicros: Array<[string, number]>;
  /** Statements per unit each app ran, BEGIN and COMMIT included. */
  statements: Array<[string, number]>;
  /** Backends of the run's database that disconnected in the window: their CPU is missing from its figure. */
  backendsClosed: number;
  walBytes: number;
  /** Table and index bytes the run's database grew by, per unit, and the tables that grew most. */
  growthBytes: number;
  growthTables: Array<[string, number]>;
}

/** After the traffic: work an app does once the last answer went out (a delivery's bookkeeping) lands in the window. */
const SETTLE_MS = 1000;

/**
 * Runs `traffic` between two readings of every process's CPU (the apps', the whole PostgreSQL server's,
 * Redis'), the server's WAL position, the sizes of `database`'s tables and the apps' statement counts,
 * and divides the differences by the units `traffic` answers. WAL and the server's CPU are the whole
 * server's: other databases' work on a shared server counts too.
 */
export async function measureWindow(
  database: string,
  apps: CountedProcess[],
  traffic: () => Promise<number>,
): Promise<UnitCost> {
  const db: Client = await connect(database);
  try {
    const meters: CpuMeter[] = [
      ...apps.map((app) => app.meter),
      { name: 'PostgreSQL (all server processes)', read: postgresCpuMicros },
      { name: 'Redis (redis-server)', read: redisCpuMicros },
    ];
    const sizesBefore = await relationSizes(db);
    const lsnBefore = await walLsn(db);
    for (const app of apps) app.counter.reset();
    const backendsBefore = await backendCpuMicros(db, database);
    const machineBefore = machineCpuTicks();
    const cpuBefore = readMeters(meters);
    const startedAt = Date.now();
    const units = await traffic();
    await sleep(SETTLE_MS);
    const cpuAfter = readMeters(meters);
    const backends = backendCpuBetween(backendsBefore, await backendCpuMicros(db, database));
    const seconds = (Date.now() - startedAt) / 1000;
    const machineBusyPercent = machineBusyPercentSince(machineBefore);
    const statements = apps.map((app): [string, number] => [app.meter.name, app.counter.statements().length / units]);
    const lsnAfter = await walLsn(db);
    const grew = growth(sizesBefore, await relationSizes(db));
    const perUnit = (value: number) => (units > 0 ? value / units : NaN);
    return {
      units,
      seconds,
      machineBusyPercent,
      cpuMicros: [
        ...meters.map((meter, i): [string, number] => [meter.name, perUnit(cpuAfter[i] - cpuBefore[i])]),
        ["PostgreSQL backends of the run's database", perUnit(backends.micros)],
      ],
      statements: statements.map(([name, count]) => [name, units > 0 ? count : NaN]),
      backendsClosed: backends.lost,
      walBytes: perUnit(await walBytesBetween(db, lsnBefore, lsnAfter)),
      growthBytes: perUnit(grew.total),
      growthTables: grew.tables.slice(0, 4).map(([name, bytes]) => [name, perUnit(bytes)]),
    };
  } finally {
    await db.end();
  }
}
