/**
 * A PgBouncer of its own in front of a PostgreSQL server, on a free loopback port, for the tests that
 * run the apps through a pooler (`npm run test:pooler`). Nothing is installed: the binary comes from
 * `fetch-pgbouncer.sh` (the machine's, or Debian's package unpacked under tmp/).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@app/testing';

const REPO_ROOT = resolve(__dirname, '../..');
/** Where Debian's package is unpacked when the machine has no pgbouncer (git-ignored, kept between runs). */
const UNPACK_DIR = join(REPO_ROOT, 'tmp', 'pgbouncer');
const START_TIMEOUT_MS = 15_000;

export type PoolMode = 'transaction' | 'session';

export interface PgbouncerOptions {
  /** The PostgreSQL server every database is passed to. */
  server: { host: string; port: number; user: string };
  poolMode?: PoolMode;
  /** The binary to run; found (or unpacked) by findPgbouncer when not given. */
  binary?: string;
}

export interface Pgbouncer {
  host: string;
  port: number;
  version: string;
  logFile: string;
  /** Counters from PgBouncer's admin console (SHOW STATS), summed over every database. */
  stats(): Promise<{ transactions: number; queries: number }>;
  /**
   * Lines of its log that report a problem (a refused login, a pool that ran out, …), less the server
   * connections of a test database that a forced DROP DATABASE ended while idle.
   */
  errors(): string[];
  stop(): Promise<void>;
}

/** The pgbouncer binary to run, unpacked from Debian's package when the machine has none (see fetch-pgbouncer.sh). */
export function findPgbouncer(): string {
  const script = join(__dirname, 'fetch-pgbouncer.sh');
  return execFileSync('bash', [script, UNPACK_DIR], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** A pgbouncer already on this machine (PGBOUNCER, the PATH, /usr/sbin, an earlier unpacking), or undefined. */
export function installedPgbouncer(env = process.env): string | undefined {
  if (env.PGBOUNCER) return existsSync(env.PGBOUNCER) ? env.PGBOUNCER : undefined;
  const candidates = [...(env.PATH ?? '').split(delimiter), '/usr/sbin'].map((dir) => join(dir, 'pgbouncer'));
  return [...candidates, join(UNPACK_DIR, 'pgbouncer')].find((candidate) => existsSync(candidate));
}

/**
 * The configuration: every database name passed through to the server, clients trusted (the server
 * behind it decides, as the local test server trusts), and pool sizes that keep the server connections
 * of a whole test run well under a shared server's max_connections.
 */
function configuration(dir: string, port: number, options: PgbouncerOptions): string {
  const { server } = options;
  return [
    '[databases]',
    `* = host=${server.host} port=${server.port}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `admin_users = ${server.user}`,
    `pool_mode = ${options.poolMode ?? 'transaction'}`,
    'max_client_conn = 2000',
    'default_pool_size = 10',
    'max_user_connections = 25',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    'log_connections = 0',
    'log_disconnections = 0',
    '',
  ].join('\n');
}

/** PgBouncer refuses to run as root: it then switches to the `postgres` user (or `nobody`). */
function runAs(dir: string): string[] {
  if (userInfo().uid !== 0) return [];
  for (const user of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
      return ['-u', user];
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error('pgbouncer will not run as root and neither a postgres nor a nobody user exists');
}

async function answers(port: number, user: string): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user, database: 'postgres', connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
}

/** Starts PgBouncer in front of `options.server` and resolves once a query passes through it. */
export async function startPgbouncer(options: PgbouncerOptions): Promise<Pgbouncer> {
  const binary = options.binary ?? findPgbouncer();
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0];
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  writeFileSync(join(dir, 'userlist.txt'), `"${options.server.user}" ""\n`, { mode: 0o644 });
  writeFileSync(join(dir, 'pgbouncer.ini'), configuration(dir, port, options), { mode: 0o644 });
  const child = spawn(binary, [...runAs(dir), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(port, options.server.user))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const output = `${stderr}${log()}`.trim();
      await stop();
      throw new Error(`pgbouncer did not start on port ${port}: ${output || 'no output'}`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  return {
    host: '127.0.0.1',
    port,
    version,
    logFile,
    async stats() {
      const admin = new Client({ host: '127.0.0.1', port, user: options.server.user, database: 'pgbouncer' });
      await admin.connect();
      try {
        const { rows } = await admin.query<{ total_xact_count: string; total_query_count: string }>('SHOW STATS');
        return rows.reduce(
          (sum, row) => ({
            transactions: sum.transactions + Number(row.total_xact_count),
            queries: sum.queries + Number(row.total_query_count),
          }),
          { transactions: 0, queries: 0 },
        );
      } finally {
        await admin.end();
      }
    },
    errors: () =>
      log()
        .split('\n')
        .filter((line) => / (ERROR|FATAL|WARNING) /.test(line) && !line.includes('from server when not linked')),
    stop,
  };
}
