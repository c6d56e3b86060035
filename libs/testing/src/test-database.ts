import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { waitUntil } from './wait';
import {
  dataSourceOptions,
  DatabaseSettings,
  DEFAULT_MIGRATION_TIMEOUTS,
  MigrationList,
  migrationDataSourceOptions,
} from '@app/platform';

/** Read at each use, so that a test which starts a server of its own can point the helpers at it. */
function admin() {
  return {
    host: process.env.DB_HOST ?? '127.0.0.1',
    port: Number(process.env.DB_PORT ?? 5432),
    user: process.env.DB_USER ?? 'postgres',
    password: process.env.DB_PASSWORD ?? '',
  };
}

/** How long a drop waits for the connections a test has just closed to leave (far above their usual few ms). */
const CLOSING_CONNECTIONS_GRACE_MS = 1000;

/**
 * Drops a test database once the connections its test closed have left. pg's `Pool.end()` resolves
 * before its clients' sockets are closed: a `DROP … WITH (FORCE)` at once would terminate backends that
 * are still on their way out, and a closing client reports that termination as an unhandled error in
 * the test that owned it. Whatever is still connected after the grace (a connection the test left
 * open) is terminated by the FORCE.
 */
async function dropTestDatabase(name: string): Promise<void> {
  await withAdmin(async (admin) => {
    const closed = async () => {
      const { rows } = await admin.query<{ connected: number }>(
        'SELECT count(*)::int AS connected FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      return rows[0].connected === 0;
    };
    // Past the grace the drop goes ahead anyway: the FORCE ends what is left.
    await waitUntil(closed, `connections to ${name} closed`, CLOSING_CONNECTIONS_GRACE_MS).catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

/** The test PostgreSQL (DB_HOST, DB_PORT, …: the server itself, never a pooler) for `database`. */
export function testDatabaseSettings(database: string, poolSize = 20): DatabaseSettings {
  return { ...admin(), database, poolSize };
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ ...admin(), database: 'postgres' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Names and code of the migrations: an edited migration must not reuse a template built from its old text. */
function migrationFingerprint(migrations: MigrationList): string {
  const list = Array.isArray(migrations) ? migrations : Object.values(migrations);
  // A class's text holds its name and every method's body.
  return list.map((m) => (typeof m === 'function' ? m.toString() : String(m))).join('\n');
}

/**
 * A migrated template per (service, migration set): built once under an advisory lock by whichever
 * test file gets there first; the name carries a hash of the migrations' names and code, so a new
 * or edited migration makes a new template instead of reusing a stale one.
 */
async function ensureTemplate(service: string, migrations: MigrationList): Promise<string> {
  const hash = createHash('sha256').update(migrationFingerprint(migrations)).digest('hex').slice(0, 12);
  const template = `${service}_tpl_${hash}`;
  return withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (found.rowCount) return template;
      const building = `${template}_building`;
      await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${building}"`);
      // The migrations run as the migration Job runs them, each bounded by the default timeouts.
      const dataSource = new DataSource(
        migrationDataSourceOptions(testDatabaseSettings(building, 2), migrations, DEFAULT_MIGRATION_TIMEOUTS),
      );
      await dataSource.initialize();
      try {
        await dataSource.runMigrations();
      } finally {
        await dataSource.destroy();
      }
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
      return template;
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
  });
}

export interface TestDatabase {
  name: string;
  drop(): Promise<void>;
}

/** A fresh, fully migrated database for one test file, copied from the migrated template. */
export async function createTestDatabase(service: string, migrations: MigrationList): Promise<TestDatabase> {
  const template = await ensureTemplate(service, migrations);
  const name = `${service}_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (error) {
        // "source database is being accessed by other users": another copy is starting; retry shortly.
        if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  return {
    name,
    drop: () => dropTestDatabase(name),
  };
}

/** An empty database (no migrations) for migration up/down tests. */
export async function createEmptyDatabase(service: string): Promise<TestDatabase> {
  const name = `${service}_empty_${randomBytes(6).toString('hex')}`;
  await withAdmin(async (admin) => void (await admin.query(`CREATE DATABASE "${name}"`)));
  return {
    name,
    drop: () => dropTestDatabase(name),
  };
}

export function testDataSource(database: string, migrations: MigrationList = []): DataSource {
  return new DataSource(dataSourceOptions(testDatabaseSettings(database, 4), migrations));
}
