import IORedis from 'ioredis';
import type { CoordinationBackend } from '../../libs/platform/src/config';

/** The coordination backend a run starts the apps with (`--backend`): the apps' COORDINATION_BACKEND. */
export type BenchBackend = CoordinationBackend;

export const BENCH_BACKENDS: readonly BenchBackend[] = ['redis', 'postgres'];

export function parseBackend(value: string): BenchBackend {
  const backend = BENCH_BACKENDS.find((known) => known === value);
  if (!backend) throw new Error(`--backend must be ${BENCH_BACKENDS.join(' or ')}, not ${value}`);
  return backend;
}

/** The steady-rate row's load and targets: the PostgreSQL-only mode is sized for a small deployment. */
export interface SteadyRateTargets {
  ratePerSecond: number;
  postP99Ms: number;
  webhookP99Ms: number;
}

export const STEADY_RATE: Record<BenchBackend, SteadyRateTargets> = {
  redis: { ratePerSecond: 200, postP99Ms: 50, webhookP99Ms: 150 },
  postgres: { ratePerSecond: 100, postP99Ms: 100, webhookP99Ms: 250 },
};

/** The targets above a mode's own rate, set for 400 messages/s; the rate search holds every step to them. */
export const HIGH_RATE_TARGETS = { postP99Ms: 150, webhookP99Ms: 250 };

/** The steady-rate row at `--rate` (the mode's own rate when absent) and the targets it is held to. */
export function steadyRateTargets(backend: BenchBackend, rate?: number): SteadyRateTargets {
  const own = STEADY_RATE[backend];
  if (rate === undefined || rate <= own.ratePerSecond) return { ...own, ratePerSecond: rate ?? own.ratePerSecond };
  return { ratePerSecond: rate, ...HIGH_RATE_TARGETS };
}

/**
 * REDIS_URL of the apps in the PostgreSQL-only mode: a port nothing listens on, so a use of Redis left
 * in that mode fails the run instead of quietly using whatever Redis the machine has.
 */
export const NO_REDIS_URL = 'redis://127.0.0.1:1';

export function describeBackend(backend: BenchBackend): string {
  return backend === 'redis'
    ? 'Redis mode (COORDINATION_BACKEND=redis)'
    : 'PostgreSQL-only mode (COORDINATION_BACKEND=postgres)';
}

/**
 * Deletes the run's own Redis keys (its unique prefix), never anything else. The PostgreSQL-only mode
 * keeps its queues, counters and channels in the run's databases, which the run drops.
 */
export async function deleteRunKeys(backend: BenchBackend, redisUrl: string, prefix: string): Promise<void> {
  if (backend !== 'redis') return;
  const redis = new IORedis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
