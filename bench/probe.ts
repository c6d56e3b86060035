import type { Client } from 'pg';
import { PG } from './lib/db';
import { BenchProcess, sleep } from './lib/processes';
import { CapturedStatement, SqlCounter, startSqlCounter } from './lib/sql-counter';
import { formatTable } from './lib/report';

/** Longer than the shortest periodic background step of an app (bot-api's redrive worker: 1 s). */
const IDLE_WINDOW_MS = 3000;

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
}

/**
 * Runs a second instance of an app whose database connection goes through the counting proxy and
 * counts, for a single request on that otherwise idle instance, the statements it runs.
 */
export async function probeStatements(
  start: (dbPort: number) => Promise<BenchProcess>,
  requests: ProbeRequests,
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
    // Whatever the instance runs on its own (timers, workers) would land in some request's count: an idle
    // window longer than any periodic step there must count nothing.
    counter.reset();
    await sleep(IDLE_WINDOW_MS);
    results.push({
      name: `${app.name}, idle ${IDLE_WINDOW_MS / 1000} s`,
      statements: counter.statements(),
      parses: counter.parses(),
    });
  } finally {
    await app.stop();
    await counter.close();
  }
  return results;
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
      String(r.statements.length),
      String(r.statements.filter((s) => /^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)/i.test(s.text.trim())).length),
      String(r.parses),
    ]),
  );
  const detail = results.map(
    (r) => `${r.name}:\n${r.statements.map((s, i) => `  ${String(i + 1).padStart(2)}. ${shorten(s.text)}`).join('\n')}`,
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
