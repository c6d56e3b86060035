import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import type { Database, PreparedStatements, Session } from './database-pool';

export type { PreparedStatements } from './database-pool';

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


const preparedStatements = new WeakMap<DataSource, PreparedStatements>();
const databases = new WeakMap<DataSource, Database>();

/** Sets how runNamed prepares statements on `dataSource`'s connections; named until this is called. */
export function usePreparedStatements(dataSource: DataSource, mode: PreparedStatements): void {
  preparedStatements.set(dataSource, mode);
}

export function preparedStatementsOf(dataSource: DataSource): PreparedStatements {
  return databases.get(dataSource)?.preparedStatements ?? preparedStatements.get(dataSource) ?? 'named';
}

/** Records that `dataSource` runs on `database`'s pool (databaseModule builds them so). */
export function bindDataSource(dataSource: DataSource, database: Database): void {
  databases.set(dataSource, database);
}

/** The Database whose pool `dataSource` runs on, when databaseModule built it. */
export function databaseOf(dataSource: DataSource): Database | undefined {
  return databases.get(dataSource);
}

type Executor = Session['executor'];

/** Where runNamed runs: a TypeORM manager or data source, a Database, or one of its transactions. */
export type SqlTarget = EntityManager | DataSource | Session;

function isSession(on: SqlTarget): on is Session {
  return !(on instanceof EntityManager) && !(on instanceof DataSource);
}

/**
 * Runs `work` on the pg connection a manager works on: its transaction's client, or (outside a
 * transaction) the Database the data source is bound to, else a connection borrowed for the statement.
 */
async function onConnection<T>(on: EntityManager | DataSource, work: (executor: Executor) => Promise<T>): Promise<T> {
  const runner = on instanceof EntityManager ? on.queryRunner : undefined;
  if (runner && !runner.isReleased) return work((await runner.connect()) as PoolClient);
  const dataSource = on instanceof DataSource ? on : on.connection;
  const database = databases.get(dataSource);
  if (database) return work(database.pool);
  const borrowed = dataSource.createQueryRunner();
  try {
    return await work((await borrowed.connect()) as PoolClient);
  } finally {
    await borrowed.release();
  }
}

/**
 * Runs one statement on a transaction (a Transaction, or an EntityManager from `dataSource.transaction`)
 * or on the pool (a Database, a DataSource or its default manager); prepared under `name` where the
 * target prepares named statements, unnamed otherwise. Returns pg's result: `rows` and `rowCount`.
 */
export async function runStatement<R extends QueryResultRow = QueryResultRow>(
  on: SqlTarget,
  text: string,
  values: readonly unknown[],
  name?: string,
): Promise<QueryResult<R>> {
  const query = (named: boolean) => ({ name: named ? name : undefined, text, values: values as unknown[] });
  if (isSession(on)) return on.executor.query<R>(query(on.preparedStatements === 'named'));
  const dataSource = on instanceof DataSource ? on : on.connection;
  const named = preparedStatementsOf(dataSource) === 'named';
  return onConnection(on, (executor) => executor.query<R>(query(named)));
}

/** Runs a named statement (see runStatement): prepared once per connection where the target allows it. */
export async function runNamed<R extends QueryResultRow = QueryResultRow>(
  on: SqlTarget,
  statement: NamedStatement,
  values: readonly unknown[] = [],
): Promise<QueryResult<R>> {
  return runStatement<R>(on, statement.text, values, statement.name);
}
