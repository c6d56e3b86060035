import { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { RATE_LIMIT_WINDOW_SECONDS } from './rate-limit-policy';
import type { RateLimitStore } from './stores';

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

export interface WindowedRateLimitersOptions<E extends string> {
  store: RateLimitStore;
  limits: Readonly<Record<E, number>>;
  /** Prefix of the counters' keys (in Redis mode the client's own keyPrefix comes first). */
  keyPrefix: string;
  /** Length of a window; the one minute of every request limit unless a counter needs another. */
  windowSeconds?: number;
}

/**
 * Fixed one-minute windows per (endpoint, subject), counted in the process's rate-limit store so every
 * replica shares them; while the store cannot be reached each process counts in memory with the same
 * limits (see RateLimitStore), so limiting never fails open.
 */
export class WindowedRateLimiters<E extends string> {
  private readonly limiters = new Map<E, RateLimiterAbstract>();

  constructor(private readonly options: WindowedRateLimitersOptions<E>) {}

  limitOf(endpoint: E): number {
    return this.options.limits[endpoint];
  }

  async consume(endpoint: E, subject: string, points = 1): Promise<RateLimitOutcome> {
    const limit = this.limitOf(endpoint);
    try {
      return outcome(limit, true, await this.limiter(endpoint).consume(subject, points));
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return outcome(limit, false, rejection);
      throw rejection;
    }
  }

  /**
   * `consume` of this counter and `peek` of another, started together: on Redis the client's
   * auto-pipelining sends both in one write, on PostgreSQL the store runs both in one statement.
   */
  consumeAndPeek<F extends string>(
    endpoint: E,
    subject: string,
    peeked: WindowedRateLimiters<F>,
    peekedEndpoint: F,
  ): Promise<[RateLimitOutcome, RateLimiterRes | null]> {
    return Promise.all([this.consume(endpoint, subject), peeked.peek(peekedEndpoint, subject)]);
  }

  /** Reads a counter without counting; null while it has no window open. */
  async peek(endpoint: E, subject: string): Promise<RateLimiterRes | null> {
    return this.limiter(endpoint).get(subject);
  }

  /**
   * Adds points without asking for permission (e.g. a failed look-up that counts against its caller);
   * answers the counter as it stands after them.
   */
  penalty(endpoint: E, subject: string, points = 1): Promise<RateLimiterRes> {
    return this.limiter(endpoint).penalty(subject, points);
  }

  private limiter(endpoint: E): RateLimiterAbstract {
    let limiter = this.limiters.get(endpoint);
    if (!limiter) {
      limiter = this.options.store.limiter({
        keyPrefix: `${this.options.keyPrefix}:${endpoint}`,
        points: this.limitOf(endpoint),
        duration: this.options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS,
      });
      this.limiters.set(endpoint, limiter);
    }
    return limiter;
  }
}

function outcome(limit: number, allowed: boolean, res: RateLimiterRes): RateLimitOutcome {
  const msBeforeNext = Math.max(res.msBeforeNext, 0);
  return {
    allowed,
    limit,
    remaining: Math.max(res.remainingPoints, 0),
    resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
    retryAfterSeconds: Math.max(Math.ceil(msBeforeNext / 1000), 1),
  };
}
