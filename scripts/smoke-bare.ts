/**
 * `npm run smoke:bare` (root, Linux): the README's two-command promise on a machine with nothing but
 * Node.js, as root in a checkout inside a private folder (0700, as root's home is).
 *
 * This checkout's HEAD is cloned into a fresh 0700 folder, with a copy of its node_modules. In a fresh
 * network namespace nothing listens on 5432 or 6379, so `npm start` must start its embedded PostgreSQL
 * (whose `postgres` user cannot enter the private folder: the server's binaries and cluster go elsewhere)
 * and choose the PostgreSQL-only mode by itself, saying so in a few lines; the README quickstarts then run
 * against it. A second namespace, joined by a veth pair, is another machine on the network: it must not
 * reach the apps, unless an app is told `HOST=0.0.0.0`. Ctrl-C (SIGINT to the process group) must stop the
 * apps and then the database. Last, test files run from the clone as `npm test` runs them, on the tests'
 * own embedded PostgreSQL. The namespaces and folders are deleted whatever happens.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectsFrom, LinkedNamespaces, linkedNamespaces } from '@app/testing';
import { CommandProcess, REPO_ROOT, startCommand } from './e2e-support';
import { rootRuntimeDir } from './local-postgres';
import {
  BOT_QUICKSTART,
  checkBotQuickstart,
  checkVoucherQuickstart,
  quickstartScript,
  runQuickstart,
  VOUCHER_QUICKSTART,
} from './quickstart';

/** The first `npm start` of a clean clone builds the workspace before starting the apps. */
const READY_TIMEOUT_MS = 10 * 60_000;
const STOP_TIMEOUT_MS = 30_000;
const TESTS_TIMEOUT_MS = 10 * 60_000;
const RECEIVER_PORT = '8443';
/** What `npm start` may print up to and including its `ready:` line, npm's own four lines included. */
const READY_LINES = 15;
/** Settings that would point the apps elsewhere than the namespace's own defaults, or change what they print. */
const CLEARED = [
  'NODE_ENV',
  'DB_HOST',
  'DB_PORT',
  'DB_USER',
  'DB_PASSWORD',
  'REDIS_URL',
  'COORDINATION_BACKEND',
  'HOST',
  'LOG_LEVEL',
  'EMBEDDED_POSTGRES_DIR',
  'ACCOUNT_JWT_SECRET',
  'INTERNAL_API_TOKEN',
  'FILE_URL_SIGNING_KEY',
  'TEST_REDIS_AVAILABLE',
];
const APP_PORTS = [3001, 3002, 3003];
/** Test files run from the clone: the embedded PostgreSQL's own, and an app's e2e file on the tests' cluster. */
const TEST_FILES = ['scripts/local-postgres.spec.ts', 'apps/voucher-api/test/foundation.e2e-spec.ts'];

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function log(line: string): void {
  process.stdout.write(`[smoke:bare] ${line}\n`);
}

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

/**
 * This checkout's HEAD (committed work only) cloned into `folder`, with a copy of this checkout's installed
 * node_modules (the same lock file; a copy takes a fraction of an `npm ci`, and shares no file with it).
 */
function cloneInto(folder: string): string {
  const checkout = join(folder, 'open-platform');
  const git = (...args: string[]) => execFileSync('git', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  git('clone', '--quiet', '--no-checkout', REPO_ROOT, checkout);
  git('-C', checkout, 'fetch', '--quiet', REPO_ROOT, 'HEAD');
  git('-C', checkout, 'checkout', '--quiet', '--detach', 'FETCH_HEAD');
  execFileSync('cp', ['-a', join(REPO_ROOT, 'node_modules'), join(checkout, 'node_modules')], { stdio: 'pipe' });
  return checkout;
}

/**
 * Runs `command` inside the namespace, in `cwd`, as a process group of its own, with the cleared settings
 * unset (not empty: `npm test`'s setup takes an empty TEST_REDIS_AVAILABLE as an answer).
 */
function inNamespace(namespace: string, command: string[], env: NodeJS.ProcessEnv, cwd: string): CommandProcess {
  const unset = CLEARED.filter((name) => env[name] === undefined).flatMap((name) => ['-u', name]);
  return startCommand('ip', ['netns', 'exec', namespace, 'env', ...unset, ...command], env, cwd);
}

function nothingListens(namespace: string): void {
  if ([5432, 6379].some((port) => connectsFrom(namespace, '127.0.0.1', port))) {
    throw new Error(`something listens on 5432 or 6379 in ${namespace}`);
  }
}

/** How many lines the output has up to and including its `ready:` line. */
function linesUpToReady(output: string): number {
  const lines = output.split('\n');
  return lines.findIndex((line) => line.startsWith('ready: ')) + 1;
}

/** Ctrl-C, as a terminal sends it, then waits for `npm start` to report the database stopped. */
async function stopLikeCtrlC(start: CommandProcess): Promise<void> {
  await start.stop('SIGINT');
  for (let waited = 0; !start.output().includes('embedded PostgreSQL stopped'); waited += 200) {
    if (waited > STOP_TIMEOUT_MS) throw new Error(`npm start did not stop its embedded PostgreSQL:\n${start.output()}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
}

/**
 * From the other machine, the apps of `npm start` answer nothing; an app told HOST=0.0.0.0 (bot-dispatcher
 * on a port of its own, on the same database, with the checkout's password through the tools' wrapper)
 * answers it.
 */
async function checkServedNetworks(network: LinkedNamespaces, checkout: string): Promise<void> {
  const answering = APP_PORTS.filter((port) => connectsFrom(network.peer, network.address, port));
  if (answering.length > 0) {
    throw new Error(
      `another machine reaches npm start's apps on ports ${answering.join(', ')}: loopback only expected`,
    );
  }
  const port = 3013;
  const main = 'dist/apps/bot-dispatcher/apps/bot-dispatcher/src/main.js';
  const open = inNamespace(
    network.name,
    [process.execPath, 'scripts/development-environment.js', process.execPath, main],
    { HOST: '0.0.0.0', PORT: String(port), COORDINATION_BACKEND: 'postgres' },
    checkout,
  );
  try {
    for (let waited = 0; !connectsFrom(network.name, '127.0.0.1', port); waited += 200) {
      if (waited > 60_000) throw new Error(`bot-dispatcher with HOST=0.0.0.0 did not listen:\n${open.output()}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
    }
    if (!connectsFrom(network.peer, network.address, port)) {
      throw new Error('another machine cannot reach an app told HOST=0.0.0.0');
    }
  } finally {
    await open.stop();
  }
}

/** Waits for whatever this smoke started in the namespace to end, then kills what is left. */
async function emptyNamespace(namespace: string): Promise<void> {
  const pids = () => {
    try {
      return ip('netns', 'pids', namespace).split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  for (let waited = 0; pids().length > 0 && waited < 10_000; waited += 200) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
  for (const pid of pids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function main(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error('smoke:bare creates network namespaces: run it as root on Linux');
  }
  const tag = process.pid % 100_000;
  const namespace = `op-smoke-${tag}`;
  let network: LinkedNamespaces | undefined;
  // A private folder, as root's home is: mkdtemp makes it 0700.
  const privateDir = mkdtempSync(join(tmpdir(), 'smoke-bare-'));
  const checkout = join(privateDir, 'open-platform');
  const started: CommandProcess[] = [];
  let start: CommandProcess | undefined;
  try {
    if ((statSync(privateDir).mode & 0o777) !== 0o700) throw new Error(`${privateDir} is not 0700`);
    const cloning = Date.now();
    cloneInto(privateDir);
    log(`cloned HEAD into ${checkout}, inside a 0700 folder, with a copy of node_modules, in ${seconds(cloning)}`);
    network = linkedNamespaces(namespace, tag);
    nothingListens(namespace);
    log(`network namespace ${namespace}: nothing listens on 5432 or 6379; npm start`);

    start = inNamespace(namespace, ['npm', 'start'], {}, checkout);
    started.push(start);
    const [readyLine] = await start.waitForOutput(/^ready: .*$/m, READY_TIMEOUT_MS);
    log(readyLine);
    const printed = linesUpToReady(start.output());
    if (printed > READY_LINES) {
      throw new Error(`npm start printed ${printed} lines up to its ready line, more than ${READY_LINES}`);
    }
    log(`npm start printed ${printed} lines up to and including its ready line`);
    if (!/embedded PostgreSQL started at .*the postgres user cannot reach/.test(start.output())) {
      throw new Error("the embedded PostgreSQL's cluster was not kept outside the private folder");
    }
    if (!/PostgreSQL-only mode/.test(readyLine)) throw new Error('the apps did not choose the PostgreSQL-only mode');

    await checkServedNetworks(network, checkout);
    log(`from ${network.peer} the apps are unreachable, and an app told HOST=0.0.0.0 is reachable`);

    const launch = (command: string[], env: NodeJS.ProcessEnv) => inNamespace(namespace, command, env, checkout);
    const voucherScript = quickstartScript(VOUCHER_QUICKSTART, {}, join(privateDir, 'unused.log'));
    await runQuickstart(voucherScript, {}, checkVoucherQuickstart, launch);
    log('voucher quickstart passed');
    const receiverLog = join(privateDir, 'receiver.log');
    const botScript = quickstartScript(BOT_QUICKSTART, {}, receiverLog);
    await runQuickstart(botScript, {}, (output) => checkBotQuickstart(output, RECEIVER_PORT, receiverLog), launch);
    log('bot quickstart passed');

    await stopLikeCtrlC(start);
    log('Ctrl-C stopped the apps, then the embedded PostgreSQL');

    nothingListens(namespace);
    // One file at a time, as a loaded CI box keeps the e2e file's start within its hook's timeout.
    const tests = inNamespace(namespace, ['npx', 'jest', '--runInBand', ...TEST_FILES], {}, checkout);
    started.push(tests);
    const testsEnded = await Promise.race([
      tests.exitCode,
      new Promise<'timeout'>((resolveWait) => setTimeout(() => resolveWait('timeout'), TESTS_TIMEOUT_MS).unref()),
    ]);
    if (testsEnded !== 0) throw new Error(`the test files failed (${testsEnded}) in the clone:\n${tests.output()}`);
    log(`the test files passed in the clone, on the tests' own embedded PostgreSQL: ${TEST_FILES.join(', ')}`);
  } catch (error) {
    // A failure after the ready line does not carry npm start's output in its message.
    if (start && !(error as Error).message.includes(start.output())) {
      process.stderr.write(`--- npm start output ---\n${start.output()}\n`);
    }
    // The end of a long log is what a CI summary shows: repeat the warnings and errors there.
    const warnings =
      start
        ?.output()
        .split('\n')
        .filter((line) => /"level":[456]\d|\] (WARN|ERROR|FATAL): /.test(line)) ?? [];
    if (warnings.length > 0) process.stderr.write(`--- warnings and errors of npm start ---\n${warnings.join('\n')}\n`);
    throw error;
  } finally {
    for (const command of started) await command.stop('SIGKILL').catch(() => undefined);
    if (network) {
      for (const name of [network.name, network.peer]) await emptyNamespace(name);
      network.remove();
    }
    rmSync(privateDir, { recursive: true, force: true });
    rmSync(rootRuntimeDir(join(checkout, '.data', 'postgres')), { recursive: true, force: true });
  }
}

main().then(
  () => log('passed'),
  (error: Error) => {
    process.stderr.write(`[smoke:bare] failed: ${error.message}\n`);
    process.exit(1);
  },
);
