import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { testEnv } from '@app/testing';
import type { BotTestContext } from './app-context';

const ROOT = resolve(__dirname, '../../..');
/** Started as its own process, exactly as deployed: bot-api never imports the dispatcher's code. */
const DISPATCHER_MAIN = join(ROOT, 'apps/bot-dispatcher/src/main.ts');

export interface DispatcherProcess {
  port: number;
  /** SIGTERM, then resolves with the exit code once the process has shut down. */
  stop(): Promise<number | null>;
  output(): string;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** bot-dispatcher on the test app's database and Redis prefix, ready once /health/ready answers 200. */
export async function startDispatcher(
  ctx: BotTestContext,
  extraEnv: Record<string, string>,
): Promise<DispatcherProcess> {
  const port = await freePort();
  const env = {
    ...process.env,
    ...testEnv(ctx.config.DB_NAME, ctx.config.REDIS_KEY_PREFIX, {
      PORT: String(port),
      LOG_LEVEL: process.env.TEST_DEBUG ? 'info' : 'warn',
      WEBHOOK_SECRET_KEY: ctx.config.WEBHOOK_SECRET_KEY,
      ...extraEnv,
    }),
    TS_NODE_TRANSPILE_ONLY: 'true',
  };
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', DISPATCHER_MAIN],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const deadline = Date.now() + 25_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bot-dispatcher exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`bot-dispatcher did not become ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
