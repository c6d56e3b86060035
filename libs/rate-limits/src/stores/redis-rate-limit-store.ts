import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { InsuranceLimiter, OutageLog } from './insurance-limiter';
import type { FixedWindow, RateLimitStore } from './rate-limit-store';

/**
 * Counters in Redis (rate-limiter-flexible's RateLimiterRedis: one script call per consume). Give it a
 * client with auto-pipelining, so calls of one tick (a request's consume and its lock-out read, a
 * send's three windows) leave in one write. The client is the caller's to close.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly description = 'Redis';
  private readonly outage = new OutageLog(new Logger('RateLimitStore'), this.description);

  constructor(private readonly redis: Redis) {
    redis.on('ready', () => this.outage.reachable());
  }

  limiter(window: FixedWindow): RateLimiterRedis {
    return new RateLimiterRedis({
      ...window,
      storeClient: this.redis,
      // While the connection is down, count in memory at once rather than wait for ioredis' retries.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new InsuranceLimiter(window, () => this.outage.unreachable()),
    });
  }

  async close(): Promise<void> {
    // The client is shared; its owner closes it.
  }
}
