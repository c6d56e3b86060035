import autocannon from 'autocannon';
import { cpuMicros } from './processes';

export interface RequestShape {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  port: number;
  /**
   * Called once per request; a distinct body (new voucher, new idempotency key) each time. `connection`
   * is the state of the connection sending it (e.g. the one bot this connection polls for).
   */
  next: (connection: Record<string, unknown>) => RequestShape;
  durationSeconds: number;
  connections?: number;
  /** Stop after this many requests even before the duration ends (a finite pool of vouchers). */
  maxRequests?: number;
  /** Requests per second over all connections; unlimited when absent. */
  overallRate?: number;
  /** The server process whose CPU time is divided by the requests served. */
  serverPid?: number;
}

export interface LoadResult {
  ok: number;
  failed: number;
  statusCodes: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number | null;
}

/** Drives one path on 127.0.0.1 with autocannon and measures the server's CPU time over the load phase. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const cpuBefore = options.serverPid ? cpuMicros(options.serverPid) : 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}`,
    connections: options.connections ?? 50,
    duration: options.durationSeconds,
    maxOverallRequests: options.maxRequests,
    overallRate: options.overallRate,
    timeout: 30,
    requests: [
      {
        setupRequest: (request, context) => {
          const shape = options.next(context as Record<string, unknown>);
          return {
            ...request,
            method: shape.method,
            path: shape.path,
            headers: { 'content-type': 'application/json', ...shape.headers },
            body: shape.body,
          };
        },
      },
    ],
  });
  const cpuAfter = options.serverPid ? cpuMicros(options.serverPid) : 0;
  const ok = result['2xx'];
  const failed = result.non2xx + result.errors + result.timeouts;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = (stats as { count: number }).count;
  }
  const served = ok + result.non2xx;
  return {
    ok,
    failed,
    statusCodes,
    seconds: result.duration,
    perSecond: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: options.serverPid && served > 0 ? (cpuAfter - cpuBefore) / served : null,
  };
}

/** Several clients that ran side by side as one: rates add up, the slowest percentile counts. */
export function combineLoads(results: LoadResult[], serverCpuMicros: number): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const served = sum((r) => r.ok) + sum((r) => r.failed);
  return {
    ok: sum((r) => r.ok),
    failed: sum((r) => r.failed),
    statusCodes,
    seconds: Math.max(...results.map((r) => r.seconds)),
    perSecond: sum((r) => r.perSecond),
    p50: quantile(
      results.map((r) => r.p50),
      0.5,
    ),
    p99: Math.max(...results.map((r) => r.p99)),
    cpuMicrosPerRequest: served > 0 ? serverCpuMicros / served : null,
  };
}

export function describeFailures(result: LoadResult): string {
  if (result.failed === 0) return '';
  const codes = Object.entries(result.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
  return `${result.failed} failed${codes ? ` (${codes})` : ''}`;
}

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
