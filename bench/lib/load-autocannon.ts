import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './load';
import { cpuMicros } from './processes';

/** Drives one path on 127.0.0.1 with autocannon, building each request as it is sent. */
export async function runAutocannon(options: LoadOptions): Promise<LoadResult> {
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
