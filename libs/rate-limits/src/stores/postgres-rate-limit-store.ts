import { Logger } from '@nestjs/common';
import { Pool, type PoolConfig } from 'pg';
import { type IRateLimiterPostgresOptions, RateLimiterPostgres } from 'rate-limiter-flexible';
import { InsuranceLimiter, OutageLog } from './insurance-limiter';
import type { FixedWindow, RateLimitStore } from './rate-limit-store';
import { CounterBatch, type CounterResult, RATE_LIMIT_TABLE } from './rate-limits.store';

interface LibraryHooks {
  _upsert(key: string, points: number, msDuration: number, forceExpire: boolean): Promise<unknown>;
}

/**
 * RateLimiterPostgres whose counts and reads go through the store's CounterBatch, so the calls of one
 * tick share one statement. `_upsert` and `_get` are the hooks every store of the library implements
 * (internal, so the store contract guards an upgrade); their answers keep the shape its
 * `_getRateLimiterRes` reads. A forced expiry (the library's `block`) still takes the library's path.
 */
class BatchedRateLimiterPostgres extends RateLimiterPostgres {
  private readonly batch: CounterBatch;

  constructor(options: IRateLimiterPostgresOptions, batch: CounterBatch) {
    super(options);
    this.batch = batch;
  }

  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    if (forceExpire)
      return (RateLimiterPostgres.prototype as unknown as LibraryHooks)._upsert.call(
        this,
        key,
        points,
        msDuration,
        forceExpire,
      );
    return this.batch.count(key, points, msDuration);
  }

  _get(key: string): Promise<CounterResult | null> {
    return this.batch.read(key);
  }
}

/**
 * A pool of its own rather than TypeORM's: a send's quota is counted inside the use case's transaction
 * (after its Idempotency-Key is claimed), so on a shared pool N concurrent sends holding N connections
 * could wait forever for an N+1th. Small, because each count is one short statement.
 */
export const RATE_LIMIT_POOL_SIZE = 4;

/**
 * Counters in the service's own database (rate-limiter-flexible's RateLimiterPostgres, its counts and
 * reads of one tick batched into one prepared statement: see CounterBatch). The table comes from the
 * service's migrations (`tableCreated: true`: the library never issues DDL at run time). The first
 * limiter built also runs the library's clean-up, which every five minutes deletes the rows whose
 * window ended over an hour ago; one per process is enough, as they all share the table.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  readonly description = 'PostgreSQL';
  private readonly outage = new OutageLog(new Logger('RateLimitStore'), this.description);
  private cleaning = false;
  private readonly batch: CounterBatch;

  constructor(private readonly pool: Pool) {
    this.batch = new CounterBatch(pool);
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
    return new BatchedRateLimiterPostgres(
      {
        ...window,
        storeClient: this.pool,
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        clearExpiredByTimeout,
        insuranceLimiter: new InsuranceLimiter(window, () => this.outage.unreachable()),
      },
      this.batch,
    );
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
