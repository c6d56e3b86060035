import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** A fixed window: `points` per `duration` seconds for each key under `keyPrefix`. */
export interface FixedWindow {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * Where the replicas of a service count their limits: one of rate-limiter-flexible's stores, chosen at
 * boot by the coordination backend. Every limiter it builds carries an in-memory insurance limiter with
 * the same window, so while the store cannot be reached each process keeps counting on its own and a
 * limit never fails open (a subject gets at most the limit times the number of replicas).
 */
export interface RateLimitStore {
  /** Names the store in log lines. */
  readonly description: string;
  limiter(window: FixedWindow): RateLimiterAbstract;
  close(): Promise<void>;
}

/** The injection token of the process's RateLimitStore. */
export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');
