/**
 * `npm run test:pooler [-- <jest arguments>]`: the apps' end-to-end suites with every app's pool
 * going through PgBouncer in transaction mode, as a platform team runs them, in the Redis mode. It
 * starts its own PgBouncer in front of the test PostgreSQL (DB_HOST:DB_PORT, or an embedded one when
 * none answers there) and stops it afterwards; the apps reach the server itself only for what a
 * transaction-mode pooler cannot carry (DB_DIRECT_HOST, DB_DIRECT_PORT), and the tests create their
 * databases there. DB_PREPARED_STATEMENTS stays at its default, so the run also shows that the apps
 * recognise the pooler by themselves.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureLocalPostgres, somethingListens } from '../local-postgres';
import { startPgbouncer } from './pgbouncer';

const REPO_ROOT = resolve(__dirname, '../..');
/** Every e2e suite of the three apps, unless the arguments name others. */
const SUITES = ['apps/voucher-api/test/', 'apps/bot-api/test/', 'apps/bot-dispatcher/test/'];

function runJest(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolveRun) => {
    const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: 'inherit',
    });
    const forward = (signal: NodeJS.Signals) => jest.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    jest.once('exit', (code, signal) => resolveRun(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'open-platform-pooler-postgres-'));
  const local = await ensureLocalPostgres({ dataDir: join(dataDir, 'postgres'), log: (line) => console.log(line) });
  const server = {
    host: local?.host ?? process.env.DB_HOST ?? '127.0.0.1',
    port: local?.port ?? Number(process.env.DB_PORT ?? 5432),
    user: process.env.DB_USER ?? 'postgres',
  };
  const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    if (!(await somethingListens(redis.hostname, Number(redis.port || 6379)))) {
      console.error(`test:pooler runs the suites in the Redis mode, and no Redis answers at ${redis.host}`);
      return 1;
    }
    const pgbouncer = await startPgbouncer({ server, poolMode: 'transaction' });
    console.log(
      `${pgbouncer.version} in transaction mode at ${pgbouncer.host}:${pgbouncer.port}, in front of ` +
        `PostgreSQL at ${server.host}:${server.port} (its log: ${pgbouncer.logFile})`,
    );
    try {
      const args = process.argv.slice(2);
      const code = await runJest(args.some((arg) => !arg.startsWith('-')) ? args : [...args, ...SUITES], {
        ...process.env,
        DB_HOST: server.host,
        DB_PORT: String(server.port),
        TEST_DB_POOLER: `${pgbouncer.host}:${pgbouncer.port}`,
        TEST_BACKENDS: 'redis',
      });
      const { transactions, queries } = await pgbouncer.stats();
      console.log(`through pgbouncer: ${transactions} transactions, ${queries} queries`);
      const errors = pgbouncer.errors();
      if (errors.length > 0) {
        console.log(
          `pgbouncer logged ${errors.length} error line(s), the first ones:\n${errors.slice(0, 20).join('\n')}`,
        );
      }
      if (transactions === 0) {
        console.error('no transaction went through pgbouncer: the suites did not use it');
        return 1;
      }
      return code;
    } finally {
      await pgbouncer.stop();
    }
  } finally {
    await local?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`test:pooler failed: ${error.message}`);
    process.exit(1);
  },
);
