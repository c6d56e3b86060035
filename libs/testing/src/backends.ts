import type { CoordinationBackend } from '@app/platform';

/**
 * The coordination backends this test run covers. The global setup probes Redis once and records the
 * answer: the PostgreSQL-only mode always runs (it needs nothing but PostgreSQL, embedded if need be),
 * the Redis mode where Redis answers. TEST_BACKENDS=postgres (or redis) narrows a run by hand.
 */
export function testBackends(): CoordinationBackend[] {
  const chosen = process.env.TEST_BACKENDS?.split(',').map((name) => name.trim());
  const available: CoordinationBackend[] =
    process.env.TEST_REDIS_AVAILABLE === '0' ? ['postgres'] : ['postgres', 'redis'];
  return chosen ? available.filter((backend) => chosen.includes(backend)) : available;
}

/**
 * The backend of suites that do not exercise queues, limits or wake-ups themselves: Redis where it
 * answers (the production default of most deployments), else the PostgreSQL-only mode.
 */
export function defaultTestBackend(): CoordinationBackend {
  const backends = testBackends();
  return backends.includes('redis') ? 'redis' : (backends[0] ?? 'postgres');
}

/**
 * A suite per backend of this run, each titled with its mode, e.g. `[postgres] getUpdates`; for the
 * suites that exercise what the two backends implement differently (queues, limits, wake-ups).
 */
export function describeEachBackend(title: string, suite: (backend: CoordinationBackend) => void): void {
  for (const backend of testBackends()) {
    describe(`[${backend}] ${title}`, () => suite(backend));
  }
}

/** What `/health/ready` reports as up in each mode: the mode itself, the database, and Redis in Redis mode. */
export function readinessInfo(backend: CoordinationBackend): Record<string, unknown> {
  return {
    coordination: { status: 'up', backend },
    database: { status: 'up' },
    ...(backend === 'redis' ? { redis: { status: 'up' } } : {}),
  };
}
