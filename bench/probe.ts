import type { Client } from 'pg';
import { PG } from './lib/db';
import { BenchProcess, sleep } from './lib/processes';
import { CapturedStatement, SqlCounter, startSqlCounter } from './lib/sql-counter';
import { formatTable } from './lib/report';

/**
 * The idle window of the statement counts: as long as the longest periodic step of an idle app (a
 * PostgreSQL-only worker's look once a minute, message-detection backfill every minute), so its rate
 * is an average over every kind of step, read in slices of the target's 3 s.
 */
export const IDLE_WINDOW_MS = 60_000;
const IDLE_SLICE_MS = 3000;

/** One request the probe makes twice: once to warm up (prepared statements, caches), once counted. */
export interface ProbedRequest {
  name: string;
  /** Makes the request; `attempt` is 0 for the warm-up and 1 for the counted one. */
  send(attempt: number): Promise<void>;
}

export type ProbeRequests = (app: BenchProcess) => ProbedRequest[];

export interface ProbeResult {
  name: string;
  statements: CapturedStatement[];
  parses: number;
  /** Idle windows only: the statements of each 3 s slice, in order. */
  slices?: number[];
}

/**
 * Runs a second instance of an app whose database connection goes through the counting proxy and
 * counts, for a single request on that otherwise idle instance, the statements it runs; then, for
 * `idleMs` (0: not at all), what the instance runs on its own.
 */
export async function probeStatements(
  start: (dbPort: number) => Promise<BenchProcess>,
  requests: ProbeRequests,
  idleMs = 0,
): Promise<ProbeResult[]> {
  const counter: SqlCounter = await startSqlCounter({ host: PG.host, port: PG.port });
  const app = await start(counter.port);
  const results: ProbeResult[] = [];
  try {
    for (const request of requests(app)) {
      await request.send(0);
      await sleep(300);
      counter.reset();
      await request.send(1);
      // Work after the response (an enqueue after commit, a last-used stamp) belongs to the request too.
      await sleep(500);
      results.push({ name: request.name, statements: counter.statements(), parses: counter.parses() });
    }
    // Whatever the instance runs on its own (timers, workers) would land in some request's count too.
    if (idleMs > 0) results.push(await idleWindow(counter, `${app.name}, idle ${idleMs / 1000} s`, idleMs));
  } finally {
    await app.stop();
    await counter.close();
  }
  return results;
}

/** The statements of an idle instance over `ms`, taken slice by slice (no await between a read and its reset). */
async function idleWindow(counter: SqlCounter, name: string, ms: number): Promise<ProbeResult> {
  const statements: CapturedStatement[] = [];
  const slices: number[] = [];
  let parses = 0;
  counter.reset();
  for (let elapsed = 0; elapsed < ms; elapsed += IDLE_SLICE_MS) {
    await sleep(IDLE_SLICE_MS);
    const slice = counter.statements();
    parses += counter.parses();
    counter.reset();
    statements.push(...slice);
    slices.push(slice.length);
  }
  return { name, statements, parses, slices };
}

/** An idle window's count: the total, and per 3 s slice the average and the worst. */
function countOf(result: ProbeResult): string {
  const slices = result.slices;
  if (!slices || slices.length === 0) return String(result.statements.length);
  const average = result.statements.length / slices.length;
  return `${result.statements.length}; per 3 s: ${average.toFixed(1)} average, ${Math.max(...slices)} worst`;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 110 ? `${flat.slice(0, 107)}...` : flat;
}

export function statementReport(results: ProbeResult[]): string {
  const table = formatTable(
    ['request', 'statements (Q + E)', 'of which BEGIN/COMMIT', 'parses (P)'],
    results.map((r) => [
      r.name,
      countOf(r),
      String(r.statements.filter((s) => /^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)/i.test(s.text.trim())).length),
      String(r.parses),
    ]),
  );
  const detail = results.map(
    (r) =>
      `${r.name}:${r.slices ? ` (per 3 s slice: ${r.slices.join(' ')})` : ''}\n` +
      r.statements.map((s, i) => `  ${String(i + 1).padStart(2)}. ${shorten(s.text)}`).join('\n'),
  );
  return [table, '', ...detail].join('\n');
}

const EXPLAINABLE = /^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b/i;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of every data statement a probed request ran, with the parameters it
 * bound, inside a transaction that is rolled back (ANALYZE executes the statement).
 */
export async function explainStatements(db: Client, result: ProbeResult, largeTables: string[]): Promise<string> {
  const parts: string[] = [];
  for (const statement of result.statements.filter((s) => EXPLAINABLE.test(s.text))) {
    let plan: string[];
    try {
      await db.query('BEGIN');
      const rows = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      plan = rows.rows.map((row: Record<string, string>) => row['QUERY PLAN']);
    } catch (error) {
      plan = [`(not re-run: ${(error as Error).message})`];
    } finally {
      await db.query('ROLLBACK');
    }
    const seqScans = plan.filter((line) => largeTables.some((table) => line.includes(`Seq Scan on ${table}`)));
    parts.push(
      `-- ${shorten(statement.text)}`,
      ...plan.map((line) => `   ${line}`),
      ...(seqScans.length > 0
        ? ['   !! sequential scan of a large table: an index is missing, or the query reads every row it matches']
        : []),
    );
  }
  return `${result.name}:\n${parts.join('\n')}`;
}
