import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

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

export async function startProcess(options: StartOptions): Promise<BenchProcess> {
  let output = '';
  const child = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: cleanEnv({ ...options.env, PORT: String(options.port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  // Production logs go to stdout at info level; keep only the tail for error messages.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
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
    output: () => output,
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
    if (gone) throw new Error(`${options.name} exited during start:\n${output}`);
    if (await options.ready(service).catch(() => false)) return service;
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${options.name} did not become ready:\n${output}`);
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
  return [...profile, resolve(ROOT, `dist/apps/${app}/apps/${app}/src/main.js`)];
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

/** Resident set size in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
