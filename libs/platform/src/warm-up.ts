import { INestApplication, Logger } from '@nestjs/common';
import { HealthCheckError, HealthIndicatorResult } from '@nestjs/terminus';
import type { AddressInfo } from 'node:net';
import { isWarmUpRequest, WARM_UP_HEADER, WARM_UP_MARK } from '@app/telemetry';
import type Redis from 'ioredis';
import type { ServiceConfig } from './config';
import { REDIS } from './redis';
import { Database, Transaction } from './database-pool';

/**
 * A representative request of a hot route, sent by the app to itself before it reports ready. It
 * must change nothing and count against no caller: give it a credential that names nobody (a fresh
 * random token, a JWT with a random signature), so that guards, the credential look-up, the envelope
 * and logging run and the answer is a 401.
 */
export interface WarmUpRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * The part of a hot use case past authentication, run by the app in-process: its body through the
 * app's validation, its parsing and rendering, its statements in `tx` (rolled back afterwards, its
 * after-commit work dropped). It must read and write only what it made up itself, so that it finds
 * and changes nothing; it resolves when its success path ran to the end, and throws otherwise.
 */
export type WarmUpRehearsal = (app: INestApplication, tx: Transaction) => Promise<void>;

/** What an app warms before it reports ready, beside its database pool and (Redis mode) Redis. */
export interface WarmUpPlan {
  /** Sent round-robin until WARM_UP_REQUESTS have been sent. */
  requests?: WarmUpRequest[];
  /** Run WARM_UP_REHEARSALS times, one at a time on each open pool connection, before the requests. */
  rehearsal?: WarmUpRehearsal;
  /** Injection tokens of BullMQ queues whose connections are opened (one read each). */
  queues?: Array<string | symbol>;
}

export interface WarmUpReport {
  /** Rehearsals of the hot use case that ran to the end (each rolled back). */
  rehearsals: number;
  requests: number;
  /** Answers by status; `failed` counts requests that got no answer. */
  statuses: Record<string, number>;
  durationMs: number;
  poolConnections: number;
  timedOut: boolean;
}

/** Requests in flight at once: enough to use several pool connections, few enough to leave the CPU to the rest. */
const CONCURRENCY = 4;

// The mark is tracing's (it must recognise warm-up requests before the app is loaded); the apps ask here.
export { isWarmUpRequest };

/**
 * Holds readiness back while the warm-up runs. An app whose warm-up never began (a test app that does
 * not listen) is ready; `begin` is called before the server listens, so no probe sees it ready early.
 */
export class WarmUpGate {
  private state: 'idle' | 'running' | 'finished' = 'idle';

  constructor(readonly plan: WarmUpPlan = {}) {}

  get warming(): boolean {
    return this.state === 'running';
  }

  begin(): void {
    if (this.state === 'idle') this.state = 'running';
  }

  finish(): void {
    this.state = 'finished';
  }

  /** The readiness entry: absent once warm, so a ready answer reads exactly as it did before warm-ups. */
  check(key: string): HealthIndicatorResult {
    if (!this.warming) return {};
    const result = { [key]: { status: 'down', message: 'warming up' } } as HealthIndicatorResult;
    throw new HealthCheckError('warming up', result);
  }
}

/** Checks out `count` connections at once (so the pool opens that many) and runs a trivial statement on each. */
async function openPool(database: Database, count: number): Promise<number> {
  const clients = await Promise.all(Array.from({ length: count }, () => database.pool.connect()));
  try {
    await Promise.all(clients.map((client) => client.query('SELECT 1')));
  } finally {
    for (const client of clients) client.release();
  }
  return database.pool.totalCount;
}

/**
 * Runs `total` rehearsals, as many at once as the pool has connections open, so that each of those
 * connections plans the use case's statements (the pool hands out the connection released last, so
 * fewer at once would warm the same few); each in a transaction rolled back.
 */
async function rehearse(
  app: INestApplication,
  database: Database,
  rehearsal: WarmUpRehearsal,
  total: number,
  report: WarmUpReport,
  signal: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total && !signal.aborted) {
      next++;
      await database.rehearse((tx) => rehearsal(app, tx));
      report.rehearsals++;
    }
  };
  const parallel = Math.max(1, Math.min(report.poolConnections, total));
  await Promise.all(Array.from({ length: parallel }, worker));
}

function optional<T>(app: INestApplication, token: string | symbol | (new (...args: never[]) => T)): T | undefined {
  try {
    return app.get<T>(token as never, { strict: false });
  } catch {
    return undefined;
  }
}

function loopbackUrl(app: INestApplication): string {
  const address = app.getHttpServer().address() as AddressInfo;
  const wildcard = address.address === '::' || address.address === '0.0.0.0';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

async function sendRequests(
  base: string,
  plan: WarmUpRequest[],
  total: number,
  statuses: Record<string, number>,
  signal: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total && !signal.aborted) {
      const request = plan[next++ % plan.length];
      const status = await fetch(`${base}${request.path}`, {
        method: request.method,
        headers: { 'content-type': 'application/json', ...request.headers, [WARM_UP_HEADER]: WARM_UP_MARK },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal,
      }).then(
        async (res) => (await res.arrayBuffer(), String(res.status)),
        () => 'failed',
      );
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, worker));
}

/**
 * Runs the app's warm-up once it listens and then lets readiness pass: the pool's minimum of
 * connections opened (a statement on each), a Redis round trip in the Redis mode, the plan's queues
 * connected, then WARM_UP_REHEARSALS runs of the plan's rehearsal (each rolled back), then
 * WARM_UP_REQUESTS of the plan's requests through the whole HTTP pipeline over loopback. Bounded by
 * WARM_UP_TIMEOUT_MS; a failed or late warm-up is logged as a warning and the app reports ready
 * anyway, as it did before warm-ups existed. Never throws.
 */
export async function warmUpApp(app: INestApplication, config: ServiceConfig): Promise<WarmUpReport | undefined> {
  const logger = new Logger('WarmUp');
  const gate = optional<WarmUpGate>(app, WarmUpGate);
  if (!gate) return undefined;
  if (!config.WARM_UP) {
    gate.finish();
    return undefined;
  }
  gate.begin();
  const startedAt = Date.now();
  const abort = new AbortController();
  const report: WarmUpReport = {
    rehearsals: 0,
    requests: 0,
    statuses: {},
    durationMs: 0,
    poolConnections: 0,
    timedOut: false,
  };
  const work = (async () => {
    const database = optional<Database>(app, Database);
    if (database) report.poolConnections = await openPool(database, Math.min(config.DB_POOL_MIN, config.DB_POOL_SIZE));
    if (config.COORDINATION_BACKEND === 'redis') await optional<Redis>(app, REDIS)?.ping();
    for (const token of gate.plan.queues ?? []) {
      const queue = optional<{ waitUntilReady(): Promise<unknown>; count(): Promise<number> }>(app, token);
      await queue?.waitUntilReady();
      await queue?.count();
    }
    const rehearsal = gate.plan.rehearsal;
    if (rehearsal && database && config.WARM_UP_REHEARSALS > 0) {
      await rehearse(app, database, rehearsal, config.WARM_UP_REHEARSALS, report, abort.signal);
    }
    const requests = gate.plan.requests ?? [];
    if (requests.length > 0 && config.WARM_UP_REQUESTS > 0) {
      await sendRequests(loopbackUrl(app), requests, config.WARM_UP_REQUESTS, report.statuses, abort.signal);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), config.WARM_UP_TIMEOUT_MS);
  });
  let failure: string | undefined;
  try {
    if ((await Promise.race([work, deadline])) === 'timeout') {
      report.timedOut = true;
      abort.abort();
      work.catch(() => undefined);
    }
  } catch (error) {
    failure = (error as Error).message;
    // The rest of the rehearsals and requests would otherwise run on after readiness.
    abort.abort();
  } finally {
    clearTimeout(timer);
  }
  report.durationMs = Date.now() - startedAt;
  report.requests = Object.values(report.statuses).reduce((sum, count) => sum + count, 0);
  const answers = Object.entries(report.statuses).map(([status, count]) => `${status}: ${count}`);
  const rehearsed = gate.plan.rehearsal ? `${report.rehearsals} rehearsals, ` : '';
  const summary =
    rehearsed +
    `${report.requests} requests${answers.length > 0 ? ` (${answers.join(', ')})` : ''} in ${report.durationMs} ms, ` +
    `${report.poolConnections} pool connections open`;
  // Logged before readiness passes, so the line precedes the first request a probe lets in.
  if (failure) logger.warn(`warm-up failed (${failure}), reporting ready anyway: ${summary}`);
  else if (report.timedOut) logger.warn(`warm-up cut off by WARM_UP_TIMEOUT_MS, reporting ready anyway: ${summary}`);
  else logger.log(`warm-up finished: ${summary}`);
  gate.finish();
  return report;
}
