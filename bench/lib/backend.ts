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

/**
 * A row's targets: POST and webhook p99 from each message's scheduled time, and (`maxBusyPercent`) the
 * share of the whole machine's CPU that may be busy over the window, so the row is a load the box carries
 * with headroom rather than one that measures the saturated machine.
 */
export interface StreamTargets {
  postP99Ms: number;
  webhookP99Ms?: number;
  maxBusyPercent?: number;
}

/** The steady-rate row's load and targets: the PostgreSQL-only mode is sized for a small deployment. */
export interface SteadyRateTargets extends StreamTargets {
  ratePerSecond: number;
  webhookP99Ms: number;
}

/** The machine's CPU share a headroom row may use: the rest is what a traffic burst or a neighbour gets. */
export const HEADROOM_BUSY_PERCENT = 70;

/** The headroom rows: the load each mode carries with the machine at most 70 % busy. */
export const STEADY_RATE: Record<BenchBackend, SteadyRateTargets> = {
  redis: { ratePerSecond: 100, postP99Ms: 30, webhookP99Ms: 60, maxBusyPercent: HEADROOM_BUSY_PERCENT },
  postgres: { ratePerSecond: 60, postP99Ms: 50, webhookP99Ms: 100, maxBusyPercent: HEADROOM_BUSY_PERCENT },
};

/** Freshly started apps, in either mode: their first seconds at this rate, with headroom (the webhook p99 is shown). */
export const FRESH_RATE: StreamTargets & { ratePerSecond: number } = {
  ratePerSecond: 100,
  postP99Ms: 100,
  maxBusyPercent: HEADROOM_BUSY_PERCENT,
};

/** The targets above a mode's own rate, set for 400 messages/s; the rate search holds every step to them. */
export const HIGH_RATE_TARGETS = { postP99Ms: 150, webhookP99Ms: 250 };

/**
 * The steady-rate row at `--rate` (the mode's own rate when absent) and the targets it is held to: at or
 * below the mode's own rate its headroom targets, above it the 400/s targets, which set no busy share
 * (those rows measure what the box sustains, not what it carries with headroom).
 */
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
