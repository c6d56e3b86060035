import type { Pool } from 'pg';

/** The table of every counter of a service, created by its migrations (see rate-limit-table.migration.ts). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * Counts and reads any number of counters in one statement, with the semantics of rate-limiter-flexible's
 * own `rlflx-upsert` and `rlflx-get` (a window that ended restarts at the points counted; a read sees only
 * a window still open). The counts are one multi-row upsert, so each of them is as exact as a statement
 * of its own; the reads see the table as it was when the statement started, which is why a batch never
 * reads a key it also counts (see CounterBatch). Parameters: $1 keys, $2 points and $3 window lengths in
 * ms of the counts, $4 now in epoch ms, $5 the keys read.
 */
const COUNT_AND_READ = {
  name: 'rate-limits-count-and-read',
  text: `WITH counted AS (
    INSERT INTO ${RATE_LIMIT_TABLE} AS counter (key, points, expire)
    SELECT input.key, input.points, CASE WHEN input.ms > 0 THEN $4::bigint + input.ms END
      FROM unnest($1::varchar[], $2::integer[], $3::bigint[]) AS input(key, points, ms)
    ON CONFLICT (key) DO UPDATE SET
      points = CASE WHEN counter.expire <= $4::bigint THEN EXCLUDED.points ELSE counter.points + EXCLUDED.points END,
      expire = CASE WHEN counter.expire <= $4::bigint THEN EXCLUDED.expire ELSE counter.expire END
    RETURNING counter.key, counter.points, counter.expire
  )
  SELECT key, points, expire FROM counted
  UNION ALL
  SELECT key, points, expire FROM ${RATE_LIMIT_TABLE}
   WHERE key = ANY($5::varchar[]) AND (expire > $4::bigint OR expire IS NULL)`,
};

/** A counter as the library's statements return it (`expire`: epoch ms as pg returns a bigint, or null). */
export interface CounterRow {
  points: number;
  expire: string | null;
}

/** What the library's `_upsert` and `_get` hooks answer: a result with the counter as its one row. */
export interface CounterResult {
  rows: CounterRow[];
  rowCount: number;
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

interface Count extends Waiter<CounterResult> {
  points: number;
}

interface Pending {
  /** Per key: the window length and every count of it, in the order they were asked. */
  counts: Map<string, { ms: number; waiters: Count[] }>;
  reads: Map<string, Waiter<CounterResult | null>[]>;
}

/**
 * Gathers the counts and reads that the limiters of one store ask for in the same tick (a request's
 * count and its lock-out read, a send's three quota windows) and runs them as one statement
 * (COUNT_AND_READ): the PostgreSQL counterpart of the Redis client's auto-pipelining. Several counts of
 * one key in a tick go in as their sum, and each caller gets the counter as it stood after its own
 * points, as if they had run one after another. A read of a key counted in the same tick (or the
 * reverse), or a second window length for one key, starts a new batch, so every caller sees what it
 * would have seen alone. Keys are counted in sorted order: two concurrent batches lock their rows in
 * the same order and cannot deadlock. A failed statement fails every call of its batch, which the
 * library then counts in its in-memory insurance.
 */
export class CounterBatch {
  private pending?: Pending;

  constructor(private readonly pool: Pool) {}

  count(key: string, points: number, ms: number): Promise<CounterResult> {
    return new Promise((resolve, reject) => {
      let batch = this.open();
      let counts = batch.counts.get(key);
      if (batch.reads.has(key) || (counts && counts.ms !== ms)) {
        batch = this.open(true);
        counts = undefined;
      }
      if (!counts) batch.counts.set(key, (counts = { ms, waiters: [] }));
      counts.waiters.push({ points, resolve, reject });
    });
  }

  read(key: string): Promise<CounterResult | null> {
    return new Promise((resolve, reject) => {
      let batch = this.open();
      if (batch.counts.has(key)) batch = this.open(true);
      const waiters = batch.reads.get(key) ?? [];
      waiters.push({ resolve, reject });
      batch.reads.set(key, waiters);
    });
  }

  /** The batch of this tick, or a new one (the current one then runs now). */
  private open(fresh = false): Pending {
    if (this.pending && !fresh) return this.pending;
    if (this.pending) this.run(this.pending);
    const batch: Pending = { counts: new Map(), reads: new Map() };
    this.pending = batch;
    queueMicrotask(() => {
      if (this.pending !== batch) return;
      this.pending = undefined;
      this.run(batch);
    });
    return batch;
  }

  private run(batch: Pending): void {
    const keys = [...batch.counts.keys()].sort();
    const points = keys.map((key) => batch.counts.get(key)!.waiters.reduce((sum, count) => sum + count.points, 0));
    const ms = keys.map((key) => batch.counts.get(key)!.ms);
    const values = [keys, points, ms, Date.now(), [...batch.reads.keys()]];
    this.pool.query<CounterRow & { key: string }>({ ...COUNT_AND_READ, values }).then(
      ({ rows }) => {
        const byKey = new Map(rows.map((row) => [row.key, row]));
        for (const [key, { waiters }] of batch.counts) settleCounts(byKey.get(key), waiters);
        for (const [key, waiters] of batch.reads) {
          const row = byKey.get(key);
          for (const waiter of waiters) waiter.resolve(row ? resultOf(row.points, row.expire) : null);
        }
      },
      (error: unknown) => {
        for (const { waiters } of batch.counts.values()) for (const waiter of waiters) waiter.reject(error);
        for (const waiters of batch.reads.values()) for (const waiter of waiters) waiter.reject(error);
      },
    );
  }
}

/** Each count of a key sees the counter after its own points and before those asked after it. */
function settleCounts(row: CounterRow | undefined, waiters: Count[]): void {
  if (!row) {
    for (const waiter of waiters) waiter.reject(new Error('the rate-limit statement returned no row for a count'));
    return;
  }
  let later = waiters.reduce((sum, count) => sum + count.points, 0);
  for (const waiter of waiters) {
    later -= waiter.points;
    waiter.resolve(resultOf(row.points - later, row.expire));
  }
}

function resultOf(points: number, expire: string | null): CounterResult {
  return { rows: [{ points, expire }], rowCount: 1 };
}
