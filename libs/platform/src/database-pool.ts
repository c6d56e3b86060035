import { Pool, PoolClient, PoolConfig, QueryResult, QueryResultRow } from 'pg';

/**
 * `named`: prepared once per connection under its name. `unnamed`: parsed on every call, as pg does
 * for any statement without a name, which every pooler carries.
 */
export type PreparedStatements = 'named' | 'unnamed';

export interface DatabaseSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
  /** Idle connections the pool keeps (pg-pool closes only those above it); at most poolSize. */
  poolMin?: number;
}

/** Where a statement runs: a transaction's client or the pool, with how named statements are prepared there. */
export interface Session {
  readonly executor: Pick<PoolClient, 'query'> | Pick<Pool, 'query'>;
  readonly preparedStatements: PreparedStatements;
}

/** One transaction on one pooled client: what a service hands to its stores. */
export class Transaction implements Session {
  private readonly onCommit: Array<() => void> = [];

  constructor(
    readonly executor: PoolClient,
    readonly preparedStatements: PreparedStatements,
  ) {}

  /**
   * Work that may start only once this transaction's rows are visible to others (a woken poller must
   * find its Update, a queued job its row): run in order right after COMMIT, dropped on rollback.
   */
  afterCommit(callback: () => void): void {
    this.onCommit.push(callback);
  }

  /** Called by Database.transaction once COMMIT has returned. */
  committed(): void {
    for (const callback of this.onCommit.splice(0)) callback();
  }
}

/** The pg settings of the service's pool: the size and idle minimum of DB_POOL_SIZE and DB_POOL_MIN. */
export function poolConfig(settings: DatabaseSettings): PoolConfig {
  return {
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    max: settings.poolSize,
    min: Math.min(settings.poolMin ?? 0, settings.poolSize),
  };
}

/**
 * The service's connection pool, through pg's public API, and the transactions on it. TypeORM's data
 * source runs on this same pool (see databaseModule), so a process holds one pool of DB_POOL_SIZE.
 */
export class Database implements Session {
  private ended = false;

  constructor(
    readonly pool: Pool,
    readonly preparedStatements: PreparedStatements = 'named',
  ) {}

  get executor(): Pool {
    return this.pool;
  }

  /**
   * Runs `work` in one transaction at PostgreSQL's default isolation (READ COMMITTED): committed when it
   * resolves, rolled back when it throws, which it rethrows. Nothing is retried: a use case that may
   * conflict says so with its own statements (row locks, conditional updates).
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const transaction = new Transaction(client, this.preparedStatements);
    let result: T;
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      result = await work(transaction);
      await client.query('COMMIT');
    } catch (error) {
      // A failed ROLLBACK means the connection is unusable: it is destroyed instead of returned.
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
    // Outside the try: the rows are committed, so nothing after this point may roll them back.
    transaction.committed();
    return result;
  }

  /**
   * Runs `work` in a transaction that is always rolled back, and returns what it returned: its
   * after-commit work never runs. For the warm-up, which runs a use case's statements on each pool
   * connection (so PostgreSQL has planned them and loaded the tables' catalog entries) and must leave
   * nothing behind, whatever the statements did.
   */
  async rehearse<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      return await work(new Transaction(client, this.preparedStatements));
    } finally {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      client.release(broken);
    }
  }

  /** Runs one statement on the pool, outside any transaction. */
  query<R extends QueryResultRow>(text: string, values: unknown[] = []): Promise<QueryResult<R>> {
    return this.pool.query<R>(text, values);
  }

  /** Nest calls this when the app closes: the pool goes last, after TypeORM let go of it. */
  onApplicationShutdown(): Promise<void> {
    return this.end();
  }

  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}
