import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { resolve } from 'node:path';

/** The repository root, from which app entry points are started. */
export const REPO_ROOT = resolve(__dirname, '../../..');

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  port: number;
  /** Sends the signal (SIGTERM by default) and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<ProcessExit>;
  exited: Promise<ProcessExit>;
  output(): string;
}

/** Whether anything accepts a TCP connection on 127.0.0.1:`port` (false once a server closed its port). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolveCheck) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveCheck(true);
    });
    socket.once('error', () => resolveCheck(false));
  });
}

/** The first port the kernel hands out for outgoing connections and `listen(0)`. */
function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolveCheck) => {
    const server = createServer();
    server.once('error', () => resolveCheck(false));
    // No host: the dual-stack wildcard the apps listen on.
    server.listen(port, () => server.close(() => resolveCheck(true)));
  });
}

/**
 * A port free now, for a process that will listen on it later. It is drawn below the kernel's
 * ephemeral range: a port from `listen(0)` is one that any outgoing connection (to PostgreSQL, Redis,
 * an app) of a parallel test may take as its local port before the process listens.
 */
export async function freePort(): Promise<number> {
  const LOWEST = 10_000;
  const below = ephemeralPortsStart();
  for (let attempt = 0; below - LOWEST > 1000 && attempt < 50; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
    if (await listenable(port)) return port;
  }
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * A free port held by a listener of this process until `release`: nobody else (another test's server,
 * an outgoing connection's local port) can take it between choosing it and the app listening on it.
 */
export async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolveListen);
  });
  const { port } = server.address() as { port: number };
  return { port, release: () => new Promise((resolveClose) => server.close(() => resolveClose())) };
}

/**
 * What to run: an app's `main.ts` of this checkout (a path from the repository root, run with ts-node), or
 * a compiled `main.js` of a build with the folder it runs in (a build of another release, say).
 */
export type ServiceEntry = string | { builtMain: string; cwd: string };

function commandOf(entry: ServiceEntry): { args: string[]; cwd: string; env: NodeJS.ProcessEnv } {
  if (typeof entry !== 'string') return { args: [entry.builtMain], cwd: entry.cwd, env: {} };
  return {
    args: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', resolve(REPO_ROOT, entry)],
    cwd: REPO_ROOT,
    env: { TS_NODE_TRANSPILE_ONLY: 'true' },
  };
}

/** Runs an app's `main.ts` (or a built `main.js`) as its own process, exactly as deployed. */
export function spawnServiceMain(entry: ServiceEntry, env: NodeJS.ProcessEnv): Omit<ServiceProcess, 'port'> {
  let output = '';
  const command = commandOf(entry);
  const child: ChildProcess = spawn(process.execPath, command.args, {
    cwd: command.cwd,
    env: { ...process.env, ...env, ...command.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<ProcessExit>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit({ code, signal })),
  );
  return {
    exited,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Attempts at a fresh port when the one probed free was taken before the process could listen on it. */
const PORT_ATTEMPTS = 3;

/**
 * Starts the entry on a free port and waits until `/health/ready` answers 200. A port probed free can
 * be taken before the process listens (any outgoing connection of a parallel test may get it as its
 * local port while ts-node compiles the app): such an exit is retried on another port.
 */
export async function startServiceProcess(
  entry: ServiceEntry,
  env: NodeJS.ProcessEnv,
  timeoutMs = 25_000,
): Promise<ServiceProcess> {
  const name = typeof entry === 'string' ? entry : entry.builtMain;
  for (let attempt = 1; ; attempt++) {
    const started = await startOnFreePort(entry, name, env, timeoutMs);
    if ('port' in started) return started;
    const output = started.output();
    if (!output.includes('EADDRINUSE') || attempt === PORT_ATTEMPTS) {
      throw new Error(`${name} exited with ${started.exit.code ?? started.exit.signal}:\n${output}`);
    }
  }
}

async function startOnFreePort(
  entry: ServiceEntry,
  name: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ServiceProcess | { exit: ProcessExit; output(): string }> {
  const port = await freePort();
  const service = spawnServiceMain(entry, { ...env, PORT: String(port) });
  let exit: ProcessExit | undefined;
  void service.exited.then((result) => (exit = result));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit) return { exit, output: service.output };
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.status === 200) return { ...service, port };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.stop('SIGKILL');
      throw new Error(`${name} did not become ready:\n${service.output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
