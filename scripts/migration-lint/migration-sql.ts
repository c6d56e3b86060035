/**
 * The SQL each migration runs, recorded by running the migrations (through the migration runner, with
 * its timeouts) against a scratch database: the migrations are TypeORM classes whose statements are
 * built by code, so running them is the one faithful way to see what they send.
 */
import { DataSource, type Logger, type MigrationInterface, type QueryRunner } from 'typeorm';
import {
  boundedMigrations,
  dataSourceOptions,
  DEFAULT_MIGRATION_TIMEOUTS,
  type DatabaseSettings,
  type MigrationList,
} from '@app/platform';
import { ignoreLines, LINT_EXCEPTIONS } from './exceptions';

export interface MigrationSql {
  /** The migration's name, as the migrations table records it. */
  name: string;
  /** Whether the runner ran it inside a transaction (every migration but a `transaction = false` one). */
  transactional: boolean;
  /** Each statement as sent, parameters written in as literals. */
  statements: string[];
}

/** A parameter as an SQL literal, so the recorded statement reads (and lints) as the server ran it. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.replace(/'/g, "''")}'`;
}

/** `$1`, `$2`, … replaced by their values, from the highest number down so `$1` never eats `$10`. */
export function withParameters(sql: string, parameters: readonly unknown[] = []): string {
  let text = sql;
  for (let index = parameters.length; index >= 1; index--) {
    text = text.split(`$${index}`).join(literal(parameters[index - 1]));
  }
  return text;
}

/** A TypeORM logger that keeps the statements sent while a migration runs, and nothing else. */
class StatementRecorder implements Logger {
  current?: string[];

  logQuery(query: string, parameters?: unknown[]): void {
    this.current?.push(withParameters(query, parameters));
  }

  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

type MigrationClass = new () => MigrationInterface;

function recorded(migration: MigrationClass, recorder: StatementRecorder, into: MigrationSql[]): MigrationClass {
  const recording = class extends migration {
    override async up(queryRunner: QueryRunner): Promise<void> {
      const statements: string[] = [];
      const transactional = queryRunner.isTransactionActive;
      recorder.current = statements;
      try {
        await super.up(queryRunner);
      } finally {
        recorder.current = undefined;
        into.push({ name: this.name ?? migration.name, transactional, statements });
      }
    }
  };
  Object.defineProperty(recording, 'name', { value: migration.name });
  return recording;
}

/**
 * Runs `migrations` in order on the empty database `settings.database` and returns the statements of
 * each, including the timeouts the runner sets first.
 */
export async function recordMigrationSql(
  settings: DatabaseSettings,
  migrations: MigrationList,
): Promise<MigrationSql[]> {
  const recorder = new StatementRecorder();
  const recordedSql: MigrationSql[] = [];
  const list = boundedMigrations(migrations, DEFAULT_MIGRATION_TIMEOUTS).map((migration) =>
    recorded(migration, recorder, recordedSql),
  );
  const dataSource = new DataSource({ ...dataSourceOptions(settings, list), logger: recorder });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
  return recordedSql;
}

/**
 * A migration's statements as one SQL file, in a transaction where the runner opens one, after the
 * file-level exceptions listed for it (see exceptions.ts).
 */
export function sqlFile(migration: MigrationSql, exceptions = LINT_EXCEPTIONS): string {
  const statements = migration.statements.map((statement) => {
    const text = statement.trim();
    return text.endsWith(';') ? text : `${text};`;
  });
  const body = migration.transactional ? ['BEGIN;', ...statements, 'COMMIT;'] : statements;
  const header = [`-- ${migration.name}: the statements it runs, recorded by npm run lint:migrations`];
  return `${[...header, ...ignoreLines(migration.name, exceptions)].join('\n')}\n${body.join('\n\n')}\n`;
}
