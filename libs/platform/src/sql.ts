import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * A hot-path SQL statement with a name. pg prepares a named statement once per connection and then
 * only binds and executes it, so Postgres parses and plans the text once instead of on every call.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

const registered = new Map<string, string>();

/**
 * Declares a named statement, usually as a module-level constant beside the code that runs it.
 * pg refuses one name for two texts on a connection, so a clash is refused here, at load time.
 */
export function namedStatement(name: string, text: string): NamedStatement {
  const existing = registered.get(name);
  if (existing !== undefined && existing !== text) {
    throw new Error(`named statement "${name}" is declared twice with different SQL`);
  }
  registered.set(name, text);
  return Object.freeze({ name, text });
}

type Executor = Pick<PoolClient, 'query'> | Pick<Pool, 'query'>;

/** The pg connection a manager works on: its transaction's client, or the pool outside a transaction. */
async function executorOf(on: EntityManager | DataSource): Promise<Executor> {
  const runner = on instanceof EntityManager ? on.queryRunner : undefined;
  if (runner && !runner.isReleased) return (await runner.connect()) as PoolClient;
  const dataSource = on instanceof DataSource ? on : on.connection;
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/**
 * Runs a named statement on the transaction of `on` (an EntityManager from `dataSource.transaction`)
 * or on the pool (a DataSource or its default manager). Returns pg's result: `rows` and `rowCount`.
 */
export async function runNamed<R extends QueryResultRow = QueryResultRow>(
  on: EntityManager | DataSource,
  statement: NamedStatement,
  values: readonly unknown[] = [],
): Promise<QueryResult<R>> {
  const executor = await executorOf(on);
  return executor.query<R>({ name: statement.name, text: statement.text, values: values as unknown[] });
}
