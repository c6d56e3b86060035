import { Logger } from '@nestjs/common';
import { Pool, type PoolConfig } from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { InsuranceLimiter, OutageLog } from './insurance-limiter';
import type { FixedWindow, RateLimitStore } from './rate-limit-store';

/** The table of every counter of a service, created by its migrations (see rate-limit-table.migration.ts). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * A pool of its own rather than TypeORM's: a send's quota is counted inside the use case's transaction
 * (after its Idempotency-Key is claimed), so on a shared pool N concurrent sends holding N connections
 * could wait forever for an N+1th. Small, because each count is one short statement.
 */
export const RATE_LIMIT_POOL_SIZE = 4;

/**
 * Counters in the service's own database (rate-limiter-flexible's RateLimiterPostgres: one
 * `INSERT … ON CONFLICT … RETURNING` per consume, a prepared statement). The table comes from the
 * service's migrations (`tableCreated: true`: the library never issues DDL at run time). The first
 * limiter built also runs the library's clean-up, which every five minutes deletes the rows whose
 * window ended over an hour ago; one per process is enough, as they all share the table.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  readonly description = 'PostgreSQL';
  private readonly outage = new OutageLog(new Logger('RateLimitStore'), this.description);
  private cleaning = false;

  constructor(private readonly pool: Pool) {
    // An idle connection that breaks emits here; without a listener it would end the process.
    pool.on('error', () => this.outage.unreachable());
    pool.on('connect', () => this.outage.reachable());
  }

  static connect(config: PoolConfig): PostgresRateLimitStore {
    return new PostgresRateLimitStore(
      new Pool({ max: RATE_LIMIT_POOL_SIZE, connectionTimeoutMillis: 2000, ...config }),
    );
  }

  limiter(window: FixedWindow): RateLimiterPostgres {
    const clearExpiredByTimeout = !this.cleaning;
    this.cleaning = true;
    return new RateLimiterPostgres({
      ...window,
      storeClient: this.pool,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      clearExpiredByTimeout,
      insuranceLimiter: new InsuranceLimiter(window, () => this.outage.unreachable()),
    });
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
