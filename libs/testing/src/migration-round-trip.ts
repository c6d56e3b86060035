import { Client } from 'pg';
import { loadConfig, migrationCli, migrationConfigSchema, type MigrationList } from '@app/platform';
import { createEmptyDatabase, testDataSource } from './test-database';

export interface MigrationRoundTrip {
  applied: number;
  tablesAfterUp: string[];
  tablesAfterDown: string[];
  tablesAfterSecondUp: string[];
}

/** Runs every migration up on an empty database, every one down again, then up once more. */
export async function migrationRoundTrip(service: string, migrations: MigrationList): Promise<MigrationRoundTrip> {
  const database = await createEmptyDatabase(service);
  const dataSource = testDataSource(database.name, migrations);
  await dataSource.initialize();
  const tables = async () =>
    (
      await dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY 1`,
      )
    ).map((row: { table_name: string }) => row.table_name);
  try {
    const applied = (await dataSource.runMigrations()).length;
    const tablesAfterUp = await tables();
    for (let i = 0; i < applied; i++) await dataSource.undoLastMigration();
    const tablesAfterDown = await tables();
    await dataSource.runMigrations();
    return { applied, tablesAfterUp, tablesAfterDown, tablesAfterSecondUp: await tables() };
  } finally {
    await dataSource.destroy();
    await database.drop();
  }
}

function clientOf(database: string): Client {
  return new Client({
    host: process.env.DB_HOST ?? '127.0.0.1',
    port: Number(process.env.DB_PORT ?? 5432),
    user: process.env.DB_USER ?? 'postgres',
    password: process.env.DB_PASSWORD ?? '',
    database,
  });
}

/** The names TypeORM records as applied, oldest first. */
async function appliedMigrations(database: string): Promise<string[]> {
  const client = clientOf(database);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY timestamp, id');
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/** Every object of the database's own schemas as one line each, sorted: equal lists mean equal schemas. */
async function schemaOf(database: string): Promise<string[]> {
  const client = clientOf(database);
  await client.connect();
  const own = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`;
  try {
    const { rows } = await client.query<{ line: string }>(`
      SELECT format('relation %s.%s %s %s', n.nspname, c.relname, c.relkind, c.relpersistence) AS line
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${own} AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND c.relname <> 'migrations'
      UNION ALL
      SELECT format('column %s.%s.%s %s %s %s', n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                    a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
       WHERE ${own} AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
         AND c.relname <> 'migrations'
      UNION ALL
      SELECT format('index %s', indexdef) FROM pg_indexes n WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
         AND tablename <> 'migrations'
      UNION ALL
      SELECT format('constraint %s.%s %s %s', n.nspname, c.relname, k.conname, pg_get_constraintdef(k.oid))
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${own} AND c.relname <> 'migrations'
      UNION ALL
      SELECT format('function %s', pg_get_functiondef(p.oid))
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${own} AND p.prokind IN ('f', 'p')
      UNION ALL
      SELECT format('trigger %s', pg_get_triggerdef(t.oid))
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE ${own} AND NOT t.tgisinternal
      UNION ALL
      SELECT format('type %s.%s %s', n.nspname, t.typname, array_to_string(array(
               SELECT enumlabel FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY enumsortorder), ','))
        FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${own} AND t.typtype = 'e'
      UNION ALL
      SELECT format('schema %s', n.nspname) FROM pg_namespace n WHERE ${own} AND n.nspname NOT LIKE 'pg_%'`);
    return rows.map((row) => row.line).sort();
  } finally {
    await client.end();
  }
}

export interface LastMigrationRevert {
  /** The schema with every migration but the last applied, made without the CLI. */
  beforeLast: string[];
  /** After the CLI's `run` on an empty database, its `revert`, and `run` again. */
  afterRun: string[];
  afterRevert: string[];
  /** The migrations the database records as applied after the revert, oldest first. */
  appliedAfterRevert: string[];
  afterRunAgain: string[];
  /** What the CLI printed for each of the three commands. */
  output: string[];
}

/**
 * Drives a service's migration CLI as a rollback does: `run` on an empty database, `revert` (which must
 * undo exactly the last migration: the schema equals one migrated without it), then `run` again (which
 * must restore what the first run made).
 */
export async function lastMigrationRevert(service: string, migrations: MigrationList): Promise<LastMigrationRevert> {
  const list = Array.isArray(migrations) ? migrations : Object.values(migrations);
  const reference = await createEmptyDatabase(`${service}_ref`);
  const database = await createEmptyDatabase(service);
  const output: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void output.push(line));
  try {
    const referenceSource = testDataSource(reference.name, list.slice(0, -1));
    await referenceSource.initialize();
    await referenceSource.runMigrations().finally(() => referenceSource.destroy());
    const server = Object.fromEntries(
      ['DB_HOST', 'DB_PORT', 'DB_USER', 'DB_PASSWORD'].flatMap((name) =>
        process.env[name] === undefined ? [] : [[name, process.env[name]]],
      ),
    );
    const config = loadConfig(migrationConfigSchema(service), {
      ...server,
      NODE_ENV: 'production',
      DB_NAME: database.name,
    });
    const cli = (command: string) => migrationCli(config, migrations, ['node', 'migrate.js', command]);
    await cli('run');
    const afterRun = await schemaOf(database.name);
    await cli('revert');
    const afterRevert = await schemaOf(database.name);
    const appliedAfterRevert = await appliedMigrations(database.name);
    await cli('run');
    return {
      beforeLast: await schemaOf(reference.name),
      afterRun,
      afterRevert,
      appliedAfterRevert,
      afterRunAgain: await schemaOf(database.name),
      output,
    };
  } finally {
    log.mockRestore();
    await database.drop();
    await reference.drop();
  }
}
