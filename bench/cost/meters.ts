import { readdirSync, readFileSync } from 'node:fs';
import type { Client } from 'pg';
import { cpuMicros } from '../lib/processes';

/** Kernel clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux this runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime of the process itself (all its threads), in ticks. */
  own: number;
  /** cutime + cstime: the time of its children it has waited for, in ticks. */
  children: number;
}

function readStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited between the listing and the read
  }
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    comm,
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    children: Number(fields[13]) + Number(fields[14]),
  };
}

function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readStat(Number(name)) ?? []);
}

/**
 * CPU time so far of the whole PostgreSQL server, in microseconds: the postmaster's own, every live
 * child's (a backend per connection, the WAL writer, the checkpointer, autovacuum) and the children it
 * has already reaped (its cutime + cstime), so a backend whose connection closed during a window still
 * counts. Needs /proc of the server's processes: the bench runs on the database's machine.
 */
export function postgresCpuMicros(): number {
  const processes = allProcesses();
  const postgres = processes.filter((p) => p.comm === 'postgres' || p.comm === 'postmaster');
  const pids = new Set(postgres.map((p) => p.pid));
  const postmasters = postgres.filter((p) => !pids.has(p.ppid));
  if (postmasters.length !== 1) throw new Error(`expected one PostgreSQL postmaster, found ${postmasters.length}`);
  const [postmaster] = postmasters;
  const children = processes.filter((p) => p.ppid === postmaster.pid);
  const ticks = postmaster.own + postmaster.children + children.reduce((sum, child) => sum + child.own, 0);
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU µs so far of each PostgreSQL backend serving `database` (pg_stat_activity), by pid. */
export async function backendCpuMicros(db: Client, database: string): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1`, [database]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const stat = readStat(pid);
    if (stat) cpu.set(pid, (stat.own * 1_000_000) / CLOCK_TICKS_PER_SECOND);
  }
  return cpu;
}

/**
 * CPU µs the backends of one database spent between two readings: a backend present in both counts its
 * difference, one that connected meanwhile all of its time; one that disconnected meanwhile is lost
 * (answered in `lost`: the apps keep their pools open, so it should be 0).
 */
export function backendCpuBetween(
  before: Map<number, number>,
  after: Map<number, number>,
): { micros: number; lost: number } {
  let micros = 0;
  for (const [pid, now] of after) micros += now - (before.get(pid) ?? 0);
  const lost = [...before.keys()].filter((pid) => !after.has(pid)).length;
  return { micros, lost };
}

/** CPU time so far of the redis-server process(es) of the machine, in microseconds; 0 when none runs. */
export function redisCpuMicros(): number {
  const ticks = allProcesses()
    .filter((p) => p.comm === 'redis-server')
    .reduce((sum, p) => sum + p.own, 0);
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The server's current WAL insert position, as text (an LSN): where the next record goes, which
 * `pg_current_wal_lsn()` (the position written out so far) trails by whatever sits in the WAL buffers.
 */
export async function walLsn(db: Client): Promise<string> {
  return (await db.query<{ lsn: string }>(`SELECT pg_current_wal_insert_lsn()::text AS lsn`)).rows[0].lsn;
}

/** WAL bytes written by the whole server between two LSNs. */
export async function walBytesBetween(db: Client, from: string, to: string): Promise<number> {
  return Number((await db.query(`SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) AS bytes`, [to, from])).rows[0].bytes);
}

/** Bytes of every table of the connected database with its indexes and TOAST (partitions are tables too). */
export async function relationSizes(db: Client): Promise<Map<string, number>> {
  const { rows } = await db.query<{ name: string; bytes: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name, pg_total_relation_size(c.oid) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg_toast%'`,
  );
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}

/** The tables that grew between two readings, largest growth first, and the total. */
export function growth(
  before: Map<string, number>,
  after: Map<string, number>,
): { total: number; tables: Array<[string, number]> } {
  const tables: Array<[string, number]> = [];
  for (const [name, bytes] of after) {
    const grew = bytes - (before.get(name) ?? 0);
    if (grew !== 0) tables.push([name, grew]);
  }
  tables.sort((a, b) => b[1] - a[1]);
  return { total: tables.reduce((sum, [, bytes]) => sum + bytes, 0), tables };
}

/** A named CPU reading: an app's pid, or the whole server. */
export interface CpuMeter {
  name: string;
  read(): number;
}

export function processMeter(name: string, pid: number): CpuMeter {
  return { name, read: () => cpuMicros(pid) };
}

/** Readings of every meter at one moment. */
export function readMeters(meters: CpuMeter[]): number[] {
  return meters.map((meter) => meter.read());
}
