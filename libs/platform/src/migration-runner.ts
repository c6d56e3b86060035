import type { MigrationInterface, MixedList, QueryRunner } from 'typeorm';

export type MigrationList = MixedList<Function>;

/** How long a migration's statement may wait for a lock, and how long it may run. */
export interface MigrationTimeouts {
  lockTimeoutMs: number;
  statementTimeoutMs: number;
}

export const DEFAULT_MIGRATION_TIMEOUTS: MigrationTimeouts = { lockTimeoutMs: 5000, statementTimeoutMs: 60000 };

type MigrationClass = new () => MigrationInterface;

/**
 * Statements that run long by design and block no reader or writer while they do (they take a SHARE
 * UPDATE EXCLUSIVE lock at most): concurrent index builds, drops and rebuilds, and the validation of a
 * constraint added NOT VALID. They still wait at most the lock timeout, but are not cut off by the
 * statement timeout, which would only throw away a build that was harming nobody.
 */
const RUNS_LONG_WITHOUT_BLOCKING =
  /^(?:(?:CREATE\s+(?:UNIQUE\s+)?|DROP\s+)INDEX\s+CONCURRENTLY|REINDEX\s+(?:\(.*?\)\s*)?(?:INDEX|TABLE|SCHEMA|DATABASE)\s+CONCURRENTLY|ALTER\s+TABLE\s+(?:ONLY\s+)?\S+\s+VALIDATE\s+CONSTRAINT)\b/is;

/** The statement after any leading `--` and block comments (a squawk-ignore note, a reason). */
function withoutLeadingComments(sql: string): string {
  let rest = sql.trimStart();
  for (;;) {
    if (rest.startsWith('--')) {
      const end = rest.indexOf('\n');
      rest = end < 0 ? '' : rest.slice(end + 1).trimStart();
    } else if (rest.startsWith('/*')) {
      const end = rest.indexOf('*/');
      rest = end < 0 ? '' : rest.slice(end + 2).trimStart();
    } else {
      return rest;
    }
  }
}

export function runsLongWithoutBlocking(sql: string): boolean {
  return RUNS_LONG_WITHOUT_BLOCKING.test(withoutLeadingComments(sql));
}

/**
 * Runs one step of a migration (`up` or `down`) bounded by the timeouts. Inside the migration's
 * transaction they are `SET LOCAL` once, first, and end with it. A migration that runs outside a
 * transaction (`transaction = false`, for CONCURRENTLY) gets them on its connection for each of its
 * statements, lifted from the statement timeout only for a statement that blocks nobody, and reset
 * afterwards.
 */
async function runBounded(queryRunner: QueryRunner, timeouts: MigrationTimeouts, step: () => Promise<void>) {
  const { lockTimeoutMs, statementTimeoutMs } = timeouts;
  if (queryRunner.isTransactionActive) {
    await queryRunner.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
    await queryRunner.query(`SET LOCAL statement_timeout = ${statementTimeoutMs}`);
    return step();
  }
  const query = queryRunner.query;
  const run = query.bind(queryRunner) as (
    sql: string,
    parameters?: unknown[],
    structured?: boolean,
  ) => Promise<unknown>;
  await run(`SET lock_timeout = ${lockTimeoutMs}`);
  await run(`SET statement_timeout = ${statementTimeoutMs}`);
  queryRunner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
    if (!runsLongWithoutBlocking(sql)) return run(sql, parameters, structured);
    await run('SET statement_timeout = 0');
    try {
      return await run(sql, parameters, structured);
    } finally {
      await run(`SET statement_timeout = ${statementTimeoutMs}`);
    }
  }) as QueryRunner['query'];
  try {
    await step();
  } finally {
    queryRunner.query = query;
    await run('RESET lock_timeout');
    await run('RESET statement_timeout');
  }
}

/** The migration class with its `up` and `down` bounded by the timeouts; TypeORM still knows it by its name. */
export function boundedMigration(migration: MigrationClass, timeouts: MigrationTimeouts): MigrationClass {
  const bounded = class extends migration {
    override async up(queryRunner: QueryRunner): Promise<void> {
      await runBounded(queryRunner, timeouts, () => super.up(queryRunner));
    }

    override async down(queryRunner: QueryRunner): Promise<void> {
      await runBounded(queryRunner, timeouts, () => super.down(queryRunner));
    }
  };
  Object.defineProperty(bounded, 'name', { value: migration.name });
  return bounded;
}

/** Every migration of the list bounded by the timeouts (see boundedMigration). */
export function boundedMigrations(migrations: MigrationList, timeouts: MigrationTimeouts): MigrationClass[] {
  const list = Array.isArray(migrations) ? migrations : Object.values(migrations);
  return list.map((migration) => boundedMigration(migration as MigrationClass, timeouts));
}
