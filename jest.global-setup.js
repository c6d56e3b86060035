// Runs once before every test file: records contract coverage per run (libs/testing/src/contract.ts,
// scripts/contract-coverage.ts), starts an embedded PostgreSQL when none answers at the test DB_HOST:DB_PORT
// (stopped by jest.global-teardown.js, with the folder that holds it and its password), and records whether
// Redis answers, so suites know which backends to cover.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createConnection } = require('node:net');
const { ensureLocalPostgres } = require('./scripts/local-postgres.js');

/** Whether something answers Redis' PING on the test run's REDIS_URL within a second. */
function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

/**
 * A throwaway cluster in a temporary folder when nothing answers where the tests look for PostgreSQL,
 * with a password of its own (in the folder, 0600); the workers inherit DB_HOST, DB_PORT and DB_PASSWORD.
 * The teardown stops it and removes the folder even when tests fail, and its helper stops it by itself
 * if this process dies first (Ctrl-C).
 */
async function testPostgres() {
  const dir = mkdtempSync(join(tmpdir(), 'open-platform-test-postgres-'));
  // As root the server runs as the `postgres` user, which must reach the data folder inside (the files
  // beside it are 0600); from a checkout it cannot reach, the server's binaries are copied here too.
  chmodSync(dir, 0o755);
  try {
    const postgres = await ensureLocalPostgres({
      dataDir: join(dir, 'postgres'),
      runtimeDir: dir,
      log: (line) => console.log(`\n${line}`),
    });
    if (!postgres) {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    process.env.DB_HOST = postgres.host;
    process.env.DB_PORT = String(postgres.port);
    process.env.DB_USER = postgres.user;
    process.env.DB_PASSWORD = postgres.password;
    globalThis.testPostgres = { postgres, dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

module.exports = async function globalSetup() {
  process.env.CONTRACT_COVERAGE_DIR ??= join(tmpdir(), 'open-platform-contract-coverage');
  rmSync(process.env.CONTRACT_COVERAGE_DIR, { recursive: true, force: true });
  await testPostgres();
  if (process.env.TEST_REDIS_AVAILABLE === undefined) {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    process.env.TEST_REDIS_AVAILABLE = (await redisAnswers(redisUrl)) ? '1' : '0';
    if (process.env.TEST_REDIS_AVAILABLE === '0') {
      console.log(`\nno Redis answers at ${redisUrl}: suites run in the PostgreSQL-only mode alone`);
    }
  }
};
