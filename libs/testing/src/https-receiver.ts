import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway certificate for 127.0.0.1 and localhost, made with the openssl CLI once per test
 * process. Test-only: the key never leaves the temporary directory.
 */
export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

let certificate: TestCertificate | undefined;

export function testCertificate(): TestCertificate {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  certificate = { dir, certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return certificate;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived, for signature checks before any parsing. */
  rawBody: Buffer;
  /** The remote socket this request came over (keep-alive reuse shows as one socket). */
  socketId: number;
}

/** What the receiver answers: a status, optionally after a delay (a timeout test sleeps past the limit). */
export type ReceiverAnswer = number | { status: number; delayMs?: number };

export interface HttpsReceiver {
  /** `https://localhost:<port>/hook` (use `ipUrl` for the literal-address form). */
  url: string;
  ipUrl: string;
  port: number;
  caFile: string;
  requests: ReceivedRequest[];
  /** Decides the answer per request (index counts from 0); 200 by default. */
  answer(decide: (request: ReceivedRequest, index: number) => ReceiverAnswer): void;
  /** Resolves once `count` requests arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A local HTTPS server that records every request's raw bytes and answers as told. */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const { cert, key, certFile } = testCertificate();
  const requests: ReceivedRequest[] = [];
  let decide: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => 200;
  const waiters: Array<() => void> = [];
  let sockets = 0;
  const socketIds = new WeakMap<object, number>();
  const server: Server = createServer({ cert, key, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (!socketIds.has(req.socket)) socketIds.set(req.socket, ++sockets);
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        socketId: socketIds.get(req.socket) ?? 0,
      };
      const index = requests.push(request) - 1;
      waiters.forEach((wake) => wake());
      const answer = decide(request, index);
      const { status, delayMs = 0 } = typeof answer === 'number' ? { status: answer } : answer;
      const timer = setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
      }, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}/hook`,
    ipUrl: `https://127.0.0.1:${port}/hook`,
    port,
    caFile: certFile,
    requests,
    answer(next) {
      decide = next;
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return false;
          clearTimeout(timer);
          resolve(requests.slice(0, count));
          return true;
        };
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} webhook requests, got ${requests.length}`)),
          timeoutMs,
        );
        if (!check()) waiters.push(() => void check());
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
