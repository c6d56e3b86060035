import {
  Compilable,
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import type { QueryResult } from 'pg';
import { NamedStatement, namedStatement, runNamed, runStatement, SqlTarget } from './sql';

/**
 * Kysely as a typed compiler only: it turns builders checked against the generated schema `DB` into SQL
 * and parameters, and never opens a connection (DummyDriver). The statements run on our own pg
 * connections (Database, Transaction), so transactions, prepared statements and counters stay ours.
 */
export function queryBuilder<DB>(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

/** The row a builder (or a PreparedQuery) returns: how a store names the rows of its statements. */
export type RowOf<Q> = Q extends Compilable<infer R> ? R : Q extends PreparedQuery<unknown, infer R> ? R : never;

/** A value the builder of a prepared statement leaves open: bound by name on each run. */
class Parameter {
  constructor(readonly name: string) {}
}

/** Where each `$N` of a compiled statement takes its value from: a named parameter or a constant of the builder. */
type Slot = { parameter: string } | { constant: unknown };

/** The named parameters as the builder sees them: each one stands for its value, typed as that value. */
function parameterProxy<P>(): P {
  return new Proxy({} as object, {
    get: (_, name) => {
      if (typeof name !== 'string') throw new Error('a statement parameter is named by a string');
      return new Parameter(name);
    },
  }) as P;
}

/**
 * A statement compiled once, at module load, and run under its name: pg parses and plans it once per
 * connection. Values are passed by name (`{ voucherId, applicationId }`), never as a positional array.
 */
export class PreparedQuery<P, R> {
  readonly statement: NamedStatement;
  private readonly slots: readonly Slot[];

  constructor(name: string, compiled: CompiledQuery<R>) {
    this.statement = namedStatement(name, compiled.sql);
    this.slots = compiled.parameters.map((value) =>
      value instanceof Parameter ? { parameter: value.name } : { constant: value },
    );
  }

  get name(): string {
    return this.statement.name;
  }

  get sql(): string {
    return this.statement.text;
  }

  /** The statement's positional values for `parameters`; a parameter the builder used but `parameters` lacks is refused. */
  values(parameters: P): unknown[] {
    return this.slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      const value = (parameters as Record<string, unknown>)[slot.parameter];
      if (value === undefined) throw new Error(`statement ${this.name} needs the parameter "${slot.parameter}"`);
      return value;
    });
  }

  async run(on: SqlTarget, parameters: P): Promise<QueryResult<R & object>> {
    return runNamed<R & object>(on, this.statement, this.values(parameters));
  }

  /** The first row, or undefined when the statement returned none. */
  async first(on: SqlTarget, parameters: P): Promise<R | undefined> {
    return (await this.run(on, parameters)).rows[0];
  }

  async all(on: SqlTarget, parameters: P): Promise<R[]> {
    return (await this.run(on, parameters)).rows;
  }
}

/**
 * Declares a prepared statement of the schema `DB`: `build` receives the compiler and the named
 * parameters, and returns a builder; its rows are typed by what the builder selects or returns.
 */
export function preparedFor<DB>(db: Kysely<DB>) {
  return function prepared<P, R>(name: string, build: (db: Kysely<DB>, parameters: P) => Compilable<R>) {
    return new PreparedQuery<P, R>(name, build(db, parameterProxy<P>()).compile());
  };
}

/** Runs a builder compiled now, unnamed: for statements off the hot paths. Returns pg's result. */
export async function execute<R>(on: SqlTarget, query: Compilable<R>): Promise<QueryResult<R & object>> {
  const compiled = query.compile();
  return runStatement<R & object>(on, compiled.sql, compiled.parameters);
}

/** The first row of a builder run with `execute`, or undefined. */
export async function executeFirst<R>(on: SqlTarget, query: Compilable<R>): Promise<R | undefined> {
  return (await execute(on, query)).rows[0];
}

/** All rows of a builder run with `execute`. */
export async function executeAll<R>(on: SqlTarget, query: Compilable<R>): Promise<R[]> {
  return (await execute(on, query)).rows;
}
