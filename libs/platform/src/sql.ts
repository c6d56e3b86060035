import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * A hot-path SQL statement with a name. pg prepares a named statement once per connection and then
 * only binds and executes it, so Postgres parses and plans the text once instead of on every call.
 * Where the connection is a transaction-mode pooler's, which hands each transaction another server
 * connection, the same statement runs unnamed instead (see `usePreparedStatements`).
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

const registered = new Map<string, string>();
const declaredNames = new Map<string, string>();

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
  declaredNames.set(text, name);
  return Object.freeze({ name, text });
}

/** The name a statement's text was declared with: what a statement counter shows for one run unnamed. */
export function declaredNameOf(text: string): string | undefined {
  return declaredNames.get(text);
}

/**
 * `named`: prepared once per connection under its name. `unnamed`: parsed on every call, as pg does
 * for any statement without a name, which every pooler carries.
 */
export type PreparedStatements = 'named' | 'unnamed';

const preparedStatements = new WeakMap<DataSource, PreparedStatements>();

/** Sets how runNamed prepares statements on `dataSource`'s connections; named until this is called. */
export function usePreparedStatements(dataSource: DataSource, mode: PreparedStatements): void {
  preparedStatements.set(dataSource, mode);
}

export function preparedStatementsOf(dataSource: DataSource): PreparedStatements {
  return preparedStatements.get(dataSource) ?? 'named';
}

type Executor = Pick<PoolClient, 'query'> | Pick<Pool, 'query'>;

function dataSourceOf(on: EntityManager | DataSource): DataSource {
  return on instanceof DataSource ? on : on.connection;
}

/** The pg connection a manager works on: its transaction's client, or the pool outside a transaction. */
async function executorOf(on: EntityManager | DataSource): Promise<Executor> {
  const runner = on instanceof EntityManager ? on.queryRunner : undefined;
  if (runner && !runner.isReleased) return (await runner.connect()) as PoolClient;
  return (dataSourceOf(on).driver as unknown as { master: Pool }).master;
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
  const name = preparedStatementsOf(dataSourceOf(on)) === 'named' ? statement.name : undefined;
  return executor.query<R>({ name, text: statement.text, values: values as unknown[] });
}
