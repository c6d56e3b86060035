import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { testCertificate } from '@app/testing';

/**
 * A lean HTTPS webhook receiver for load: it keeps only the arrival time of each Update (first
 * arrival wins; a redelivery is not counted twice) and answers 200 at once. Requests are grouped by
 * the path, so the app's deliveries and the baseline's never mix.
 */
export interface WebhookReceiver {
  port: number;
  caFile: string;
  url(channel: string): string;
  /** Distinct Updates received on a channel, with their arrival time (performance.now()). */
  arrivals(channel: string): Map<string, number>;
  /** Resolves when `count` distinct Updates arrived on the channel, or after `timeoutMs` (false). */
  waitFor(channel: string, count: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The marker a latency probe puts into a message text, so its webhook can be matched to its POST. */
export const PROBE_MARKER = /probe-(\d+)-/;

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const { cert, key, certFile } = testCertificate();
  const channels = new Map<string, Map<string, number>>();
  const channel = (name: string) => {
    let found = channels.get(name);
    if (!found) channels.set(name, (found = new Map()));
    return found;
  };
  const server: Server = createServer({ cert, key, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrivedAt = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const probe = PROBE_MARKER.exec(body);
      const id = probe ? `probe-${probe[1]}` : String(req.headers['x-service-update-id'] ?? body.length);
      const seen = channel(new URL(req.url ?? '/', 'https://x').pathname.slice(1));
      if (!seen.has(id)) seen.set(id, arrivedAt);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caFile: certFile,
    url: (name) => `https://127.0.0.1:${port}/${name}`,
    arrivals: channel,
    async waitFor(name, count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (channel(name).size < count) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
