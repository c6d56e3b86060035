import { createServer, Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalCertificate, testCertificate } from './local-certificate';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived, for signature checks before any parsing. */
  rawBody: Buffer;
  /** The remote socket this request came over (keep-alive reuse shows as one socket). */
  socketId: number;
}

/** What the receiver answers: a status, optionally after a delay (a timeout test sleeps past the limit) and with headers. */
export type ReceiverAnswer = number | { status: number; delayMs?: number; headers?: Record<string, string> };

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

export interface HttpsReceiverOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  /** The address to listen on; 127.0.0.1 by default. */
  host?: string;
  /** The certificate to serve; by default this process's throw-away test certificate. */
  certificate?: LocalCertificate;
  /** False for a long-running receiver: requests are only handed to `answer`, `requests` stays empty. */
  keepRequests?: boolean;
}

/** A local HTTPS server that records every request's raw bytes and answers as told. */
export async function startHttpsReceiver(options: HttpsReceiverOptions = {}): Promise<HttpsReceiver> {
  const { cert, key, certFile } = options.certificate ?? testCertificate();
  const requests: ReceivedRequest[] = [];
  let decide: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => 200;
  const waiters: Array<() => void> = [];
  let sockets = 0;
  let received = 0;
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
      const index = options.keepRequests === false ? received : requests.push(request) - 1;
      received += 1;
      waiters.forEach((wake) => wake());
      const answer = decide(request, index);
      const { status, delayMs = 0, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      const timer = setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(String(status));
      }, delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
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
