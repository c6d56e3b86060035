import { ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { INestApplication } from '@nestjs/common';

export const REPO_ROOT = resolve(__dirname, '..');

/** Listens on 127.0.0.1 (on `port`, or a free one) and answers the app's base URL. */
export async function listen(app: INestApplication, port = 0): Promise<string> {
  await app.listen(port, '127.0.0.1');
  const address = app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

export interface CommandProcess {
  output(): string;
  /** The exit code of the command itself (what it started in the background may still run). */
  exitCode: Promise<number | null>;
  /** Resolves once the output matches, rejects when the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /**
   * Stops the whole process group (npm and what it started) with `signal` (SIGTERM; SIGINT is a
   * terminal's Ctrl-C) and waits for the command's exit.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs a command the way a developer's terminal would (in `cwd`, this checkout by default), as a process
 * group of its own, so `stop` ends npm together with the program npm started (npm does not pass SIGTERM on).
 */
export function startCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = REPO_ROOT,
): CommandProcess {
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  let exited = false;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  child.stdout?.on('data', (chunk: Buffer) => ((output += chunk.toString()), notify()));
  child.stderr?.on('data', (chunk: Buffer) => ((output += chunk.toString()), notify()));
  const exitCode = new Promise<number | null>((resolveExit) =>
    child.once('exit', (code) => {
      exited = true;
      notify();
      resolveExit(code);
    }),
  );
  return {
    output: () => output,
    exitCode,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match || exited) {
            listeners.delete(check);
            clearTimeout(timer);
            if (match) resolveMatch(match);
            else reject(new Error(`${command} exited before printing ${pattern}:\n${output}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${command} did not print ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      try {
        // The group outlives its leader when the command left something running in the background.
        if (child.pid) process.kill(-child.pid, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      await exitCode;
      await groupGone(child.pid);
    },
  };
}

/** Waits (up to 5 s) until no process of the group is left. */
async function groupGone(pgid: number | undefined): Promise<void> {
  if (!pgid) return;
  for (let waited = 0; waited < 5000; waited += 50) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
