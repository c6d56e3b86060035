import { spawnSync } from 'node:child_process';
import { runAutocannon } from './load-autocannon';
import { runWrk } from './load-wrk';

/** `--driver`: autocannon runs inside the bench's own process; wrk is a separate C program. */
export type LoadDriver = 'autocannon' | 'wrk';

export const LOAD_DRIVERS: readonly LoadDriver[] = ['autocannon', 'wrk'];

export function parseDriver(value: string): LoadDriver {
  const driver = LOAD_DRIVERS.find((known) => known === value);
  if (!driver) throw new Error(`--driver must be ${LOAD_DRIVERS.join(' or ')}, not ${value}`);
  if (driver === 'wrk' && spawnSync('wrk', ['--version']).error)
    throw new Error('--driver wrk needs the wrk load generator, which is not installed: apt-get install wrk');
  return driver;
}

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
  /** autocannon when absent. */
  driver?: LoadDriver;
  /**
   * The path may send a request again (verify, sendMessage): without `maxRequests`, wrk cycles through
   * a prepared set instead of needing one per request it could send.
   */
  repeatable?: boolean;
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

/**
 * Drives one path on 127.0.0.1 with the chosen load generator and measures the server's CPU time over
 * the load phase. Both drivers answer the same figures, so a table can be made with either.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return (options.driver ?? 'autocannon') === 'wrk' ? runWrk(options) : runAutocannon(options);
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
