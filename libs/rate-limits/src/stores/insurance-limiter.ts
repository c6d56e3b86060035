import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { FixedWindow } from './rate-limit-store';

/**
 * rate-limiter-flexible's in-memory limiter as the insurance of a store limiter: the library calls it
 * whenever the store fails, so each use also tells the store that it is unreachable.
 */
export class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    window: FixedWindow,
    private readonly onUse: () => void,
  ) {
    super(window);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): ReturnType<RateLimiterMemory['consume']> {
    this.onUse();
    return super.consume(...args);
  }

  override penalty(...args: Parameters<RateLimiterMemory['penalty']>): ReturnType<RateLimiterMemory['penalty']> {
    this.onUse();
    return super.penalty(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>): ReturnType<RateLimiterMemory['get']> {
    this.onUse();
    return super.get(...args);
  }
}

/** Logs the first use of the insurance after the store was fine, and the store's return. */
export class OutageLog {
  private outage = false;

  constructor(
    private readonly logger: { warn(message: string): void; log(message: string): void },
    private readonly store: string,
  ) {}

  unreachable(): void {
    if (this.outage) return;
    this.outage = true;
    this.logger.warn(`${this.store} unreachable: rate limits are counted in memory by each process`);
  }

  reachable(): void {
    if (!this.outage) return;
    this.outage = false;
    this.logger.log(`${this.store} reachable again: rate limits are shared by every process`);
  }
}
