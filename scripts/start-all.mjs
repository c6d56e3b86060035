// `npm start`: builds the three apps, then starts them side by side; Ctrl-C (SIGINT) or SIGTERM stops all
// of them gracefully. Outside production it first starts an embedded PostgreSQL when nothing answers at a
// loopback DB_HOST:DB_PORT (scripts/local-postgres.js), and stops it once the apps have exited.
//
// It says what it does in a few lines: one per step, one per app once that app is ready, and the `ready:`
// line. In development the apps log only warnings and errors (LOG_LEVEL=warn unless set), shown one readable
// line each (scripts/readable-logs.js), listen on loopback only (HOST) and get this checkout's generated secrets.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import concurrently from 'concurrently';
import localPostgres from './local-postgres.js';
import developmentEnvironment from './development-environment.js';
import readableLogs from './readable-logs.js';

const { DEFAULT_SECRETS_FILE, developmentSecrets } = developmentEnvironment;

const require = createRequire(import.meta.url);
const development = (process.env.NODE_ENV || 'development') === 'development';

const APPS = [
  { name: 'voucher-api', port: 3001, shown: (url) => `${url} (docs /docs)` },
  { name: 'bot-api', port: 3002, shown: (url) => `${url} (docs /docs)` },
  { name: 'bot-dispatcher', port: 3003, shown: (url) => `${url}/health/ready` },
];
const READY_POLL_MS = 250;
const SLOW_START_MS = 120_000;

/**
 * On a development machine (NODE_ENV unset or `development`) webhooks must reach a receiver on this
 * machine with its own certificate, and a failing one should show its retries within minutes. Each
 * setting applies only when the variable is not set already.
 */
function developmentWebhookSettings() {
  const settings = { WEBHOOK_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_DELAYS_MS: '5000,15000,30000,60000' };
  if (!process.env.WEBHOOK_CA_FILE) {
    try {
      settings.WEBHOOK_CA_FILE = execFileSync(
        process.execPath,
        [
          '-r',
          'ts-node/register/transpile-only',
          '-r',
          'tsconfig-paths/register',
          'scripts/dev-webhook-certificate.ts',
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      ).trim();
    } catch {
      console.warn('no development webhook certificate; local HTTPS receivers will not be trusted');
    }
  }
  const applied = Object.entries(settings).filter(([name]) => !process.env[name]);
  for (const [name, value] of applied) process.env[name] = value;
  if (applied.length > 0) {
    const shown = applied.map(([name, value]) => `${name}=${name.endsWith('_FILE') ? relative('.', value) : value}`);
    console.log(`development webhook settings: ${shown.join(' ')}`);
  }
}

/**
 * The rest of a development machine's settings, each only when not set already: this checkout's generated
 * secrets (with the public defaults, anyone who reaches the apps could sign in as staff), and quiet,
 * readable logs. Said in one line.
 */
function developmentSettings() {
  const defaults = { ...developmentSecrets(), LOG_LEVEL: 'warn' };
  for (const [name, value] of Object.entries(defaults)) process.env[name] ||= value;
  const host = process.env.HOST ? `HOST=${process.env.HOST}` : 'loopback only (HOST=0.0.0.0 opens them to the network)';
  const level = process.env.LOG_LEVEL;
  const requests = ['fatal', 'error', 'warn', 'silent'].includes(level)
    ? ' (LOG_LEVEL=info adds a line per request)'
    : '';
  console.log(
    `development: the apps listen on ${host}, log at ${level}${requests} and take their secrets from ` +
      relative('.', DEFAULT_SECRETS_FILE),
  );
}

/** Builds the apps (Nx, cached), printing one line, or the build's whole output when it fails. */
async function build() {
  const started = Date.now();
  const nxPackage = require.resolve('nx/package.json');
  const nx = join(dirname(nxPackage), JSON.parse(readFileSync(nxPackage, 'utf8')).bin.nx);
  try {
    await promisify(execFile)(
      process.execPath,
      [nx, 'run-many', '-t', 'build', '--parallel=3', '--outputStyle=static'],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw new Error('the build failed (its output is above)');
  }
  console.log(`built the apps in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The coordination backend of all three apps, settled once here so that they cannot disagree: an explicit
 * COORDINATION_BACKEND wins; otherwise Redis when it answers, else the PostgreSQL-only mode. The probe is
 * the apps' own (libs/coordination, from the build that `npm start` has just made).
 */
async function coordinationBackend() {
  const chosen = process.env.COORDINATION_BACKEND;
  if (chosen) return chosen;
  const { redisAddress, redisAnswers } = require('../dist/apps/bot-api/libs/coordination/src/resolve-backend.js');
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return 'redis';
  console.log(`no Redis answers at ${redisAddress(url)}: the apps run in the PostgreSQL-only mode`);
  return 'postgres';
}

/**
 * Creates the two service databases when missing and migrates them before any app starts: the dispatcher
 * works in bot-api's database and neither creates nor migrates it, so on a new cluster it would otherwise
 * race bot-api to it.
 */
async function migrateDatabases() {
  const said = await Promise.all(
    ['voucher-api', 'bot-api'].map(async (name) => {
      const { stdout } = await promisify(execFile)(process.execPath, [
        `dist/apps/${name}/apps/${name}/src/database/migrate.js`,
        'run',
      ]);
      return `${name} ${stdout.trim()}`;
    }),
  );
  console.log(`migrations: ${said.join('; ')}`);
}

/** Where this machine reaches the apps: HOST when it names one address, else loopback. */
function probeHost() {
  const host = process.env.HOST;
  if (!host || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

async function ready(port) {
  try {
    return (await fetch(`http://${probeHost()}:${port}/health/ready`)).status === 200;
  } catch {
    return false;
  }
}

/** Prints a line as each app becomes ready, then one once every app is (unless the run ends first). */
async function announceWhenReady(finished, backend) {
  const started = Date.now();
  const seen = new Set();
  let warned = false;
  for (;;) {
    const states = await Promise.all(APPS.map((app) => ready(app.port)));
    if (finished()) return;
    APPS.forEach((app, index) => {
      if (!states[index] || seen.has(app.name)) return;
      seen.add(app.name);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${app.name} is ready after ${seconds} s, on ${process.env.HOST || '127.0.0.1'}:${app.port}`);
    });
    if (states.every(Boolean)) break;
    if (!warned && Date.now() - started > SLOW_START_MS) {
      warned = true;
      const waiting = APPS.filter((_, index) => !states[index]).map((app) => app.name);
      console.log(`still waiting for ${waiting.join(', ')} to be ready (GET /health/ready)`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, READY_POLL_MS));
  }
  const apps = APPS.map((app) => `${app.name} ${app.shown(`http://localhost:${app.port}`)}`).join(', ');
  const mode = backend === 'redis' ? 'Redis mode' : 'PostgreSQL-only mode';
  console.log(`ready: ${apps} — ${mode}`);
}

const exitCodeOf = (events) =>
  events.some((e) => e.exitCode !== 0 && e.exitCode !== 'SIGTERM' && e.exitCode !== 'SIGINT') ? 1 : 0;

async function main() {
  await build();
  if (development) {
    developmentWebhookSettings();
    developmentSettings();
  }
  const postgres = await localPostgres.ensureLocalPostgres();
  // The apps and the migrations log in with the embedded server's password.
  if (postgres) process.env.DB_PASSWORD = postgres.password;
  try {
    if (!['false', '0'].includes(process.env.MIGRATIONS_RUN ?? '')) await migrateDatabases();
  } catch (error) {
    await postgres?.stop();
    throw new Error(`the migrations failed: ${(error.stderr || error.message).trim()}`);
  }
  const backend = await coordinationBackend();
  process.env.COORDINATION_BACKEND = backend;

  const { result } = concurrently(
    APPS.map(({ name }) => ({ name, command: `node dist/apps/${name}/apps/${name}/src/main.js` })),
    {
      prefix: 'name',
      killOthersOn: ['failure'],
      killSignal: 'SIGTERM',
      handleInput: false,
      outputStream: development ? readableLogs.readableLogs() : process.stdout,
    },
  );
  let finished = false;
  void announceWhenReady(() => finished, backend);
  const exitCode = await result.then(() => 0, exitCodeOf);
  finished = true;
  if (postgres) {
    await postgres.stop();
    console.log('embedded PostgreSQL stopped');
  }
  process.exit(exitCode);
}

main().catch((error) => {
  console.error(`npm start failed: ${error.message}`);
  process.exit(1);
});
