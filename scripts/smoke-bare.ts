/**
 * `npm run smoke:bare` (root, Linux): the README's two-command promise on a machine with nothing but
 * Node.js. In a fresh network namespace nothing listens on 5432 or 6379, so `npm start` must start its
 * embedded PostgreSQL and choose the PostgreSQL-only mode by itself; the README quickstarts then run
 * against it. Ctrl-C (SIGINT to the process group) must stop the apps and then the database. The
 * namespace is deleted whatever happens.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandProcess, startCommand } from './e2e-support';
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
const RECEIVER_PORT = '8443';
/** Settings that would point the apps elsewhere than the namespace's own defaults. */
const CLEARED = ['NODE_ENV', 'DB_HOST', 'DB_PORT', 'DB_PASSWORD', 'REDIS_URL', 'COORDINATION_BACKEND'];

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function log(line: string): void {
  process.stdout.write(`[smoke:bare] ${line}\n`);
}

/** Runs `command` inside the namespace as a process group of its own, with the cleared settings unset. */
function inNamespace(namespace: string, command: string[], env: NodeJS.ProcessEnv): CommandProcess {
  const cleared = Object.fromEntries(CLEARED.map((name) => [name, '']));
  return startCommand('ip', ['netns', 'exec', namespace, ...command], { ...cleared, ...env });
}

async function nothingListens(namespace: string): Promise<void> {
  const probe = inNamespace(
    namespace,
    [
      process.execPath,
      '-e',
      `const { somethingListens } = require('./scripts/local-postgres.js');
       Promise.all([5432, 6379].map((port) => somethingListens('127.0.0.1', port)))
         .then((answers) => process.exit(answers.some(Boolean) ? 1 : 0));`,
    ],
    {},
  );
  if ((await probe.exitCode) !== 0) throw new Error(`something listens on 5432 or 6379 in ${namespace}`);
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
 * Waits for whatever this smoke started in the namespace to end (a killed `npm start`'s database helper
 * stops its server by itself within moments), then kills what is left, so no process outlives the run.
 */
async function emptyNamespace(namespace: string): Promise<void> {
  const pids = () => ip('netns', 'pids', namespace).split('\n').filter(Boolean).map(Number);
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
    throw new Error('smoke:bare creates a network namespace: run it as root on Linux');
  }
  const namespace = `op-smoke-${process.pid}`;
  const workDir = mkdtempSync(join(tmpdir(), 'smoke-bare-'));
  // The embedded server runs as the `postgres` user (the smoke runs as root), which must reach its folder.
  chmodSync(workDir, 0o755);
  let start: CommandProcess | undefined;
  ip('netns', 'add', namespace);
  try {
    ip('netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up');
    await nothingListens(namespace);
    log(`network namespace ${namespace}: nothing listens on 5432 or 6379; npm start`);

    // A cluster of its own, so the smoke neither needs nor touches a developer's .data/postgres.
    start = inNamespace(namespace, ['npm', 'start'], { EMBEDDED_POSTGRES_DIR: join(workDir, 'postgres') });
    const [readyLine] = await start.waitForOutput(/^ready: .*$/m, READY_TIMEOUT_MS);
    log(readyLine);
    if (!/starting an embedded PostgreSQL/.test(start.output())) throw new Error('no embedded PostgreSQL was started');
    if (!/PostgreSQL-only mode/.test(readyLine)) throw new Error('the apps did not choose the PostgreSQL-only mode');

    const launch = (command: string[], env: NodeJS.ProcessEnv) => inNamespace(namespace, command, env);
    const voucherScript = quickstartScript(VOUCHER_QUICKSTART, {}, join(workDir, 'unused.log'));
    await runQuickstart(voucherScript, {}, checkVoucherQuickstart, launch);
    log('voucher quickstart passed');
    const receiverLog = join(workDir, 'receiver.log');
    const botScript = quickstartScript(BOT_QUICKSTART, {}, receiverLog);
    await runQuickstart(botScript, {}, (output) => checkBotQuickstart(output, RECEIVER_PORT, receiverLog), launch);
    log('bot quickstart passed');

    await stopLikeCtrlC(start);
    log('Ctrl-C stopped the apps, then the embedded PostgreSQL');
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
        .filter((line) => /"level":[456]\d/.test(line)) ?? [];
    if (warnings.length > 0) process.stderr.write(`--- warnings and errors of npm start ---\n${warnings.join('\n')}\n`);
    throw error;
  } finally {
    await start?.stop('SIGKILL').catch(() => undefined);
    await emptyNamespace(namespace);
    ip('netns', 'delete', namespace);
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => log('passed'),
  (error: Error) => {
    process.stderr.write(`[smoke:bare] failed: ${error.message}\n`);
    process.exit(1);
  },
);
