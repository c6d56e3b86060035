import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
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

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Runs an app's `main.ts` as its own process, exactly as deployed but without a build step. */
export function spawnServiceMain(mainPath: string, env: NodeJS.ProcessEnv): Omit<ServiceProcess, 'port'> {
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', resolve(REPO_ROOT, mainPath)],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, TS_NODE_TRANSPILE_ONLY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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

/** Starts `mainPath` on a free port and waits until `/health/ready` answers 200. */
export async function startServiceProcess(
  mainPath: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 25_000,
): Promise<ServiceProcess> {
  const port = await freePort();
  const service = spawnServiceMain(mainPath, { ...env, PORT: String(port) });
  let exit: ProcessExit | undefined;
  void service.exited.then((result) => (exit = result));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exit) throw new Error(`${mainPath} exited with ${exit.code ?? exit.signal}:\n${service.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.status === 200) return { ...service, port };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.stop('SIGKILL');
      throw new Error(`${mainPath} did not become ready:\n${service.output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
