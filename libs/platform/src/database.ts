import { DynamicModule, Logger, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import * as pg from 'pg';
import { Client, DatabaseError } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { PreparedStatementSetting, ServiceConfig } from './config';
import { Database, DatabaseSettings, poolConfig } from './database-pool';
import { boundedMigrations, MigrationList, MigrationTimeouts } from './migration-runner';
import { bindDataSource, databaseOf, PreparedStatements } from './sql';

// Declared beside the pool that takes them, so the pool's file needs nothing of this one.
export type { DatabaseSettings } from './database-pool';

export function databaseSettings(config: ServiceConfig): DatabaseSettings {
  return {
    host: config.DB_HOST,
    port: config.DB_PORT,
    user: config.DB_USER,
    password: config.DB_PASSWORD,
    database: config.DB_NAME,
    poolSize: config.DB_POOL_SIZE,
    poolMin: config.DB_POOL_MIN,
  };
}

/**
 * The server itself (DB_DIRECT_HOST, DB_DIRECT_PORT, each defaulting to its DB_ counterpart), for what a
 * transaction-mode pooler cannot carry: migrations, LISTEN and the PostgreSQL-only mode's queues.
 */
export function directDatabaseSettings(config: ServiceConfig): DatabaseSettings {
  return {
    ...databaseSettings(config),
    host: config.DB_DIRECT_HOST ?? config.DB_HOST,
    port: config.DB_DIRECT_PORT ?? config.DB_PORT,
  };
}

/** The variables that name the server's address in `config`, for error messages. */
function directVariables(config: ServiceConfig): string {
  return config.DB_DIRECT_HOST || config.DB_DIRECT_PORT ? 'DB_DIRECT' : 'DB';
}

export function migrationTimeouts(config: ServiceConfig): MigrationTimeouts {
  return { lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS, statementTimeoutMs: config.MIGRATION_STATEMENT_TIMEOUT_MS };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Nothing accepts connections at DB_HOST:DB_PORT: a boot error that says where it looked and what to do. */
export class DatabaseUnreachableError extends Error {
  constructor(settings: DatabaseSettings, production: boolean, cause: Error, variables = 'DB') {
    const [host, port] = [`${variables}_HOST`, `${variables}_PORT`];
    super(
      `no PostgreSQL answers at ${host}=${settings.host} ${port}=${settings.port} (${cause.message || cause.name}); ` +
        (production
          ? `production never starts an embedded PostgreSQL: point ${host} and ${port} at the database`
          : 'start PostgreSQL there, or use `npm start`, which starts an embedded one when nothing answers ' +
            'at a loopback DB_HOST'),
    );
    this.name = 'DatabaseUnreachableError';
  }
}

const REACH_ATTEMPTS = 3;
const REACH_RETRY_MS = 1000;

/**
 * Fails the boot with a DatabaseUnreachableError when no server answers at DB_HOST:DB_PORT after a few
 * attempts, instead of TypeORM's retries ending in a bare ECONNREFUSED. Any answer from a server (even a
 * refused login or a missing database) counts: those errors surface later with their own message.
 */
export async function assertDatabaseReachable(
  settings: DatabaseSettings,
  production: boolean,
  variables = 'DB',
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ ...settings, connectionTimeoutMillis: 5000, application_name: 'reachability' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return;
    } catch (error) {
      if (error instanceof DatabaseError) return;
      if (attempt >= REACH_ATTEMPTS)
        throw new DatabaseUnreachableError(settings, production, error as Error, variables);
      await new Promise((resolve) => setTimeout(resolve, REACH_RETRY_MS));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Creates the service's database when it is missing (development convenience, off in production). */
export async function ensureDatabase(settings: DatabaseSettings): Promise<boolean> {
  const client = new Client({ ...settings, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [settings.database]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(settings.database)}`);
    } catch (error) {
      // Two replicas booting together may race; the loser sees 42P04 (duplicate_database).
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
    return true;
  } finally {
    await client.end();
  }
}

export function dataSourceOptions(settings: DatabaseSettings, migrations: MigrationList): DataSourceOptions {
  return {
    type: 'postgres',
    host: settings.host,
    port: settings.port,
    username: settings.user,
    password: settings.password,
    database: settings.database,
    synchronize: false,
    migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    extra: { max: settings.poolSize, min: Math.min(settings.poolMin ?? 0, settings.poolSize) },
  };
}

/**
 * The options of a data source that runs migrations: each migration bounded by the timeouts (see
 * boundedMigration). Give it the server's address (directDatabaseSettings), never a pooler's.
 */
export function migrationDataSourceOptions(
  settings: DatabaseSettings,
  migrations: MigrationList,
  timeouts: MigrationTimeouts,
): DataSourceOptions {
  return dataSourceOptions(settings, boundedMigrations(migrations, timeouts));
}

/** Applies the pending migrations, each in its own transaction and bounded by the timeouts; returns their names. */
export async function applyMigrations(
  settings: DatabaseSettings,
  migrations: MigrationList,
  timeouts: MigrationTimeouts,
): Promise<string[]> {
  const dataSource = new DataSource(migrationDataSourceOptions({ ...settings, poolMin: 0 }, migrations, timeouts));
  await dataSource.initialize();
  try {
    return (await dataSource.runMigrations()).map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Whether a pooler, not the server, answers at `settings`. A server announces its own process id
 * when a connection opens (for cancel requests), the one `pg_backend_pid()` returns. A pooler that
 * hands a connection's transactions to several server connections cannot announce theirs and makes one
 * up (PgBouncer, pgcat, Supavisor, RDS Proxy and Odyssey do), so the two differ.
 */
export async function answeredByPooler(settings: DatabaseSettings): Promise<boolean> {
  const client = new Client({ ...settings, connectionTimeoutMillis: 5000, application_name: 'pooler-probe' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0].pid !== (client as unknown as { processID: number }).processID;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** DB_PREPARED_STATEMENTS settled: `auto` becomes named on the server itself and unnamed behind a pooler. */
export async function resolvePreparedStatements(
  setting: PreparedStatementSetting,
  settings: DatabaseSettings,
  logger: Pick<Logger, 'log'> = new Logger('Database'),
): Promise<PreparedStatements> {
  if (setting !== 'auto') return setting;
  const pooler = await answeredByPooler(settings);
  logger.log(
    pooler
      ? `a pooler answers at ${settings.host}:${settings.port}: hot-path statements run unnamed (DB_PREPARED_STATEMENTS=auto; set named where the pooler keeps prepared statements)`
      : `PostgreSQL answers at ${settings.host}:${settings.port} itself: hot-path statements run as named prepared statements (DB_PREPARED_STATEMENTS=auto)`,
  );
  return pooler ? 'unnamed' : 'named';
}

/**
 * pg as TypeORM loads it, except that its Pool is `database`'s own: TypeORM's data source then runs on
 * the service's one pool (TypeORM's public `driver` option), and closing the data source leaves the
 * pool to the Database that owns it.
 */
function driverOn(database: Database): typeof pg {
  const shared = new Proxy(database.pool, {
    get(target, property) {
      if (property === 'end') return (callback?: (error?: Error) => void) => void callback?.();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return Object.create(pg, { Pool: { value: function SharedPool() { return shared; } } }) as typeof pg;
}

@Module({})
class DatabaseModule {}

/**
 * The service's database: a Database (its pg pool, transactions, typed and prepared statements) and
 * TypeORM's data source on that same pool, with entities from each feature module's forFeature().
 * Migrations (when the process runs them) and the creation of a missing database go to the server
 * directly (DB_DIRECT_HOST, DB_DIRECT_PORT); the app's own pool goes to DB_HOST, a pooler or the server.
 */
export function databaseModule(config: ServiceConfig, migrations: MigrationList): DynamicModule {
  const settings = databaseSettings(config);
  const direct = directDatabaseSettings(config);
  const production = config.NODE_ENV === 'production';
  let database: Database | undefined;
  const typeOrm = TypeOrmModule.forRootAsync({
    useFactory: async () => {
      await assertDatabaseReachable(settings, production);
      if (directVariables(config) === 'DB_DIRECT' && (config.dbAutoCreate || config.MIGRATIONS_RUN)) {
        await assertDatabaseReachable(direct, production, 'DB_DIRECT');
      }
      if (config.dbAutoCreate && (await ensureDatabase(direct))) {
        new Logger('Database').log(`created database ${settings.database}`);
      }
      if (config.MIGRATIONS_RUN) await applyMigrations(direct, migrations, migrationTimeouts(config));
      const preparedStatements = await resolvePreparedStatements(config.DB_PREPARED_STATEMENTS, settings);
      database = new Database(new pg.Pool(poolConfig(settings)), preparedStatements);
      return {
        ...dataSourceOptions(settings, migrations),
        driver: driverOn(database),
        autoLoadEntities: true,
        retryAttempts: 3,
        retryDelay: 1000,
      };
    },
    dataSourceFactory: async (options) => {
      const dataSource = await new DataSource(options!).initialize();
      bindDataSource(dataSource, database!);
      return dataSource;
    },
  });
  return {
    module: DatabaseModule,
    global: true,
    imports: [typeOrm],
    providers: [
      {
        provide: Database,
        useFactory: (dataSource: DataSource) => databaseOf(dataSource),
        inject: [getDataSourceToken()],
      },
    ],
    exports: [Database],
  };
}

/**
 * What the migration CLI reads: the database settings only (the shared variables), so that a migration
 * Job needs database credentials and nothing of the app's own secrets. `databaseName` is the service's
 * default `DB_NAME`.
 */
export function migrationConfigSchema(databaseName: string): new () => ServiceConfig {
  return class MigrationConfig extends ServiceConfig {
    override DB_NAME = databaseName;

    /** The migrations (BullMQ's schema among them) need the database alone, in either coordination mode. */
    override extraProblems(): string[] {
      return super.extraProblems().filter((problem) => !problem.startsWith('COORDINATION_BACKEND'));
    }
  };
}

const WAIT_STEP_MS = 2000;

/**
 * Resolves once no migration of the list is pending, or throws after `timeoutMs`. An error (the
 * database or the migrations table not there yet, a role without rights yet) counts as "not yet".
 */
async function waitUntilMigrated(settings: DatabaseSettings, migrations: MigrationList, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const dataSource = new DataSource(dataSourceOptions({ ...settings, poolSize: 1, poolMin: 0 }, migrations));
    let state: string;
    try {
      await dataSource.initialize();
      const pending = await dataSource
        .query("SELECT to_regclass('migrations') IS NOT NULL AS present")
        .then(async ([row]: Array<{ present: boolean }>) => !row.present || (await dataSource.showMigrations()));
      if (!pending) return;
      state = 'migrations are pending';
    } catch (error) {
      state = (error as Error).message;
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
    if (Date.now() >= deadline) throw new Error(`${settings.database} is not migrated: ${state}`);
    console.log(`waiting for the migrations of ${settings.database}: ${state}`);
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

const USAGE = 'usage: migrate.js run | revert | show | wait [seconds]';

/** The commands of the migration CLI and how many arguments each takes after its name. */
const COMMANDS: Record<string, number> = { run: 0, revert: 0, show: 0, wait: 1 };

/**
 * Undoes the last applied migration, exactly one, as TypeORM's `undoLastMigration` does, but refuses
 * what that call lets through silently: nothing to revert, or a last migration this image does not
 * carry (it was applied by a newer release, whose image holds its `down`). A migration that runs
 * outside a transaction (`transaction = false`, an index built CONCURRENTLY) is reverted outside one too.
 */
async function revertLastMigration(dataSource: DataSource, database: string): Promise<string> {
  const [table] = await dataSource.query("SELECT to_regclass('migrations') IS NOT NULL AS present");
  const [last]: Array<{ name: string }> = table.present
    ? await dataSource.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1')
    : [];
  if (!last) throw new Error(`nothing to revert: no migration is applied to ${database}`);
  const migration = dataSource.migrations.find(
    (candidate) => (candidate.name ?? candidate.constructor.name) === last.name,
  );
  if (!migration) {
    throw new Error(
      `the last migration applied to ${database}, ${last.name}, is not in this image: ` +
        'revert it with the image of the release that applied it',
    );
  }
  await dataSource.undoLastMigration({ transaction: migration.transaction === false ? 'none' : 'each' });
  return last.name;
}

/**
 * `node migrate.js run|revert|show|wait [seconds]`: the entry point of the Kubernetes migration Job, of
 * the schema check another process of the same database runs before it starts (`wait`, default 600 s),
 * of a rollback (`revert`: exactly the last applied migration) and of the Nx targets. Each command takes
 * only its own arguments: a stray word (`run revert`) is refused, so no command runs as another.
 */
export async function migrationCli(
  config: ServiceConfig,
  migrations: MigrationList,
  argv = process.argv,
): Promise<void> {
  const [command = 'run', ...args] = argv.slice(2);
  if (!(command in COMMANDS)) throw new Error(`unknown command "${command}"; ${USAGE}`);
  if (args.length > COMMANDS[command]) {
    const allowed = COMMANDS[command] === 0 ? 'no argument' : 'at most one argument';
    throw new Error(`${command} takes ${allowed}, got "${args.join(' ')}"; ${USAGE}`);
  }
  const settings = directDatabaseSettings(config);
  if (command === 'wait') {
    const seconds = Number(args[0] ?? 600);
    if (!Number.isInteger(seconds) || seconds < 1) throw new Error('wait takes a whole number of seconds');
    await waitUntilMigrated(settings, migrations, seconds * 1000);
    console.log(`${settings.database} is up to date`);
    return;
  }
  await assertDatabaseReachable(settings, config.NODE_ENV === 'production', directVariables(config));
  if (config.dbAutoCreate) await ensureDatabase(settings);
  const dataSource = new DataSource(migrationDataSourceOptions(settings, migrations, migrationTimeouts(config)));
  await dataSource.initialize();
  try {
    if (command === 'run') {
      const applied = await dataSource.runMigrations();
      console.log(`applied ${applied.length} migration(s) to ${settings.database}`);
    } else if (command === 'revert') {
      const reverted = await revertLastMigration(dataSource, settings.database);
      console.log(`reverted ${reverted} of ${settings.database}`);
    } else {
      const pending = await dataSource.showMigrations();
      console.log(pending ? 'pending migrations exist' : 'database is up to date');
    }
  } finally {
    await dataSource.destroy();
  }
}
