import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadOptions, LoadResult, RequestShape } from './load';
import { cpuMicros } from './processes';

/** One wrk thread drives 50 connections easily and leaves the other core to the servers. */
const WRK_THREADS = 1;
/** Requests prepared for a repeatable path, sent round and round. */
const REPEATED_REQUESTS = 10_000;
const SCRIPT = join(__dirname, 'wrk-requests.lua');
/** What the script writes to stderr when a thread has sent and seen answered every request it had. */
const THREAD_DONE = 'bench-wrk-thread-done';

interface WrkFigures {
  durationMicros: number;
  p50Micros: number;
  p99Micros: number;
  statuses: Record<string, number>;
  errors: { connect: number; read: number; write: number; timeout: number };
}

function rawRequest(shape: RequestShape, port: number): Buffer {
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(shape.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = shape.body === undefined ? undefined : Buffer.from(shape.body);
  if (body) headers['content-length'] = String(body.length);
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`${shape.method} ${shape.path} HTTP/1.1\r\n${head}\r\n`), body ?? Buffer.alloc(0)]);
}

/**
 * Writes the requests before the load, as wrk's Lua cannot call back into the bench: thread t of T
 * gets requests t, t + T, … so no two threads send the same one.
 */
function prepareRequests(dir: string, options: LoadOptions, count: number, threads: number): void {
  const parts: Buffer[][] = Array.from({ length: threads }, () => []);
  for (let n = 0; n < count; n++) {
    const raw = rawRequest(options.next({}), options.port);
    parts[n % threads].push(Buffer.from(`${raw.length}\n`), raw);
  }
  parts.forEach((part, t) => writeFileSync(join(dir, `requests-${t}`), Buffer.concat(part)));
}

function runWrkProcess(args: string[], threads: number): Promise<WrkFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // Every thread used up its requests: SIGINT ends wrk's wait for the duration, then it reports.
      if (!interrupted && stderr.split(THREAD_DONE).length - 1 >= threads) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.once('error', reject);
    // 'close', not 'exit': the figures are the last thing wrk writes, and must have been read.
    child.once('close', (code) => {
      const line = /BENCH_WRK_RESULT (.*)/.exec(stdout)?.[1];
      if (line) resolve(JSON.parse(line) as WrkFigures);
      else reject(new Error(`wrk ended (${code}) without its figures:\n${stdout}\n${stderr}`));
    });
  });
}

/** Drives one path on 127.0.0.1 with wrk, each request prepared in advance (see wrk-requests.lua). */
export async function runWrk(options: LoadOptions): Promise<LoadResult> {
  if (options.overallRate !== undefined) throw new Error('wrk sends closed-loop only; a set rate needs autocannon');
  if (options.maxRequests === undefined && !options.repeatable)
    throw new Error('wrk needs maxRequests for a path whose requests must all be distinct');
  const connections = options.connections ?? 50;
  const threads = Math.min(WRK_THREADS, connections);
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const count = options.maxRequests ?? REPEATED_REQUESTS;
    if (count < threads) throw new Error(`wrk needs at least one request per thread, got ${count}`);
    prepareRequests(dir, options, count, threads);
    const cpuBefore = options.serverPid ? cpuMicros(options.serverPid) : 0;
    const figures = await runWrkProcess(
      [
        ...['-t', String(threads), '-c', String(connections), '-d', `${options.durationSeconds}s`],
        ...['--timeout', '30s', '-s', SCRIPT, `http://127.0.0.1:${options.port}`],
        ...['--', dir, options.maxRequests === undefined ? 'cycle' : 'once'],
      ],
      threads,
    );
    const cpuAfter = options.serverPid ? cpuMicros(options.serverPid) : 0;
    const served = Object.values(figures.statuses).reduce((total, count) => total + count, 0);
    const ok = Object.entries(figures.statuses)
      .filter(([code]) => code.startsWith('2'))
      .reduce((total, [, count]) => total + count, 0);
    const { connect, read, write, timeout } = figures.errors;
    const seconds = figures.durationMicros / 1e6;
    return {
      ok,
      failed: served - ok + connect + read + write + timeout,
      statusCodes: figures.statuses,
      seconds,
      perSecond: ok / seconds,
      p50: figures.p50Micros / 1000,
      p99: figures.p99Micros / 1000,
      cpuMicrosPerRequest: options.serverPid && served > 0 ? (cpuAfter - cpuBefore) / served : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
