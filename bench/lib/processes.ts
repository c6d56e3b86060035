import { ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root: apps start from their production build under dist/. */
export const ROOT = resolve(__dirname, '../..');

/** Kernel clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on every Linux this runs on). */
const CLOCK_TICKS_PER_SECOND = 100;

export interface BenchProcess {
  name: string;
  pid: number;
  port: number;
  output(): string;
  exited: Promise<void>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/**
 * Every child this bench starts is stopped when the bench ends, whether it finishes, fails or is
 * interrupted: SIGTERM first, SIGKILL for whatever is still alive after the grace period.
 */
export function stopAllOnExit(onInterrupt: () => Promise<void>): void {
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the bench processes`);
    void onInterrupt()
      .catch(() => undefined)
      .finally(() => {
        killAll('SIGKILL');
        process.exit(130);
      });
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.once('exit', () => killAll('SIGKILL'));
}

function killAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

// The same free-port probe the service tests use.
export { freePort } from '../../libs/testing/src/service-process';

/** Only what a deployment would set: no inherited NODE_ENV, DB_* or REDIS_* from the caller's shell. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env };
}

export interface StartOptions {
  name: string;
  /** Arguments after `node`. */
  args: string[];
  env: Record<string, string>;
  port: number;
  /** Resolves once the process is ready to take load. */
  ready: (service: { port: number; output(): string }) => Promise<boolean>;
  timeoutMs?: number;
}

/** Where each process's stdout and stderr go: BENCH_APP_LOG_DIR if set, else a directory of this run. */
let logDir: string | undefined;
function processLogDir(): string {
  if (!logDir) {
    logDir = process.env.BENCH_APP_LOG_DIR
      ? resolve(process.env.BENCH_APP_LOG_DIR)
      : mkdtempSync(join(tmpdir(), 'bench-logs-'));
    mkdirSync(logDir, { recursive: true });
  }
  return logDir;
}

/** Removes the processes' logs, unless BENCH_APP_LOG_DIR asked to keep them. */
export function removeProcessLogs(): void {
  if (logDir && !process.env.BENCH_APP_LOG_DIR) rmSync(logDir, { recursive: true, force: true });
}

const logFiles = new Map<string, number>();
/** One file per process started; a second instance of the same name gets `<name>-2.log`. */
function logFileFor(name: string): string {
  const base = name.replace(/\W+/g, '-');
  const count = (logFiles.get(base) ?? 0) + 1;
  logFiles.set(base, count);
  return join(processLogDir(), count === 1 ? `${base}.log` : `${base}-${count}.log`);
}

/** The last `bytes` of a file: a process's latest output, for readiness markers and error messages. */
function tail(file: string, bytes = 20_000): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString();
  } finally {
    closeSync(fd);
  }
}

export async function startProcess(options: StartOptions): Promise<BenchProcess> {
  // Production logs go to stdout at info level. They go to a file here, as a container runtime would
  // take them: read through a pipe by this process, whose event loop also drives the load, a full pipe
  // made the apps wait on their log lines (a redeem cost about a fifth more CPU that way).
  const logFile = logFileFor(options.name);
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: cleanEnv({ ...options.env, PORT: String(options.port) }),
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  running.add(child);
  const output = () => tail(logFile);
  const exited = new Promise<void>((resolveExit) =>
    child.once('exit', () => {
      running.delete(child);
      resolveExit();
    }),
  );
  const service: BenchProcess = {
    name: options.name,
    pid: child.pid ?? 0,
    port: options.port,
    output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(timer);
    },
  };
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`${options.name} exited during start:\n${output()}`);
    if (await options.ready(service).catch(() => false)) return service;
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${options.name} did not become ready:\n${output()}`);
    }
    await sleep(200);
  }
}

export function httpReady(path: string) {
  return async ({ port }: { port: number }): Promise<boolean> =>
    (await fetch(`http://127.0.0.1:${port}${path}`)).status === 200;
}

export function outputReady(marker: string) {
  return async ({ output }: { output(): string }): Promise<boolean> => output().includes(marker);
}

/**
 * `node dist/apps/<app>/apps/<app>/src/main.js`, the production entry point. With
 * `BENCH_CPU_PROF_DIR` set, each app writes a V8 CPU profile there when it stops (Node refuses
 * `--cpu-prof` in NODE_OPTIONS).
 */
export function appArgs(app: string): string[] {
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const profile = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`, `--cpu-prof-name=${app}.cpuprofile`]
    : [];
  // Flags that NODE_OPTIONS refuses (`--trace-gc`, most V8 flags) go on the command line.
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return [...flags, ...profile, resolve(ROOT, `dist/apps/${app}/apps/${app}/src/main.js`)];
}

/** A bench-only TypeScript entry (baselines) run through ts-node's transpiler. */
export function scriptArgs(file: string): string[] {
  return ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', resolve(ROOT, file)];
}

/** User + system CPU time of a process so far, in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may contain spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** Busy and total CPU time of the whole machine so far (all cores, in clock ticks), from /proc/stat. */
export function machineCpuTicks(): { busy: number; total: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  // idle and iowait are the time no core had work; everything else (steal included) is busy.
  return { busy: total - ticks[3] - ticks[4], total };
}

/** The share of the machine's CPU time that was busy since `before`, 0–100. */
export function machineBusyPercentSince(before: { busy: number; total: number }): number {
  const now = machineCpuTicks();
  const total = now.total - before.total;
  return total > 0 ? (100 * (now.busy - before.busy)) / total : 0;
}

/** Resident set size in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/** TCP state ESTABLISHED in /proc/net/tcp. */
const TCP_ESTABLISHED = '01';

/**
 * Established TCP connections a process holds to `remotePort` (its PostgreSQL connections: the
 * database pool, the queue clients' pools and the listening connections), from /proc: the process's
 * socket inodes, matched against the connection tables of its network namespace.
 */
export function connectionsTo(pid: number, remotePort: number): number {
  const sockets = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) sockets.add(inode);
    } catch {
      // The descriptor was closed between the listing and the read.
    }
  }
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    const rows = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const row of rows) {
      const [, , remote, state, , , , , , inode] = row.trim().split(/\s+/);
      if (state === TCP_ESTABLISHED && parseInt(remote.split(':')[1], 16) === remotePort && sockets.has(inode)) count++;
    }
  }
  return count;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
