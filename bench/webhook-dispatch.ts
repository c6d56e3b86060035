/**
 * Deliveries per second of the dispatcher's webhook POST path.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/webhook-dispatch.ts [deliveries] [concurrency]
 *
 * Starts a local HTTPS receiver (throw-away certificate) and sends the same signed Update payloads,
 * `concurrency` at a time, through:
 *   sender    the dispatcher's WebhookSender: HMAC signatures, address policy, one keep-alive undici
 *             Agent per bot (connections = max_connections)
 *   fetch     baseline: global fetch, signing the same way, on Node's default dispatcher
 *   https     baseline: node:https with a new TLS connection per delivery (no keep-alive)
 * Throughput is printed as a ratio to each baseline measured in the same run, so it compares across
 * machines; the absolute figures are printed once for orientation.
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { Agent, setGlobalDispatcher } from 'undici';
import { startHttpsReceiver } from '@app/testing';
import { signWebhook } from '@app/bot-delivery';
import { WebhookSender } from '../apps/bot-dispatcher/src/delivery/webhook-sender';

const TOTAL = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 20);
const SECRET = 'bench_secret';
const UPDATE_ID = '8c1d7c4e-2f0a-4b8e-9a55-0d3c2b1a9f77';

type Deliver = (body: Buffer) => Promise<boolean>;

async function run(name: string, deliver: Deliver): Promise<{ name: string; perSecond: number; failures: number }> {
  const bodies = Array.from({ length: 50 }, (_, i) =>
    Buffer.from(JSON.stringify({ update_id: UPDATE_ID, type: 'message', message: { message_id: i, text: `m${i}` } })),
  );
  let next = 0;
  let failures = 0;
  // Warm-up: connections, TLS sessions and JIT, excluded from the figure.
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => deliver(bodies[i % bodies.length])));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const i = next++;
        if (!(await deliver(bodies[i % bodies.length]))) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { name, perSecond: TOTAL / seconds, failures };
}

function signedHeaders(body: Buffer): Record<string, string> {
  const signed = signWebhook(SECRET, body, Math.floor(Date.now() / 1000));
  return {
    'content-type': 'application/json',
    'x-service-signature': signed.v1,
    'x-service-signature-v2': signed.v2,
    'x-service-timestamp': signed.timestamp,
    'x-service-update-id': UPDATE_ID,
  };
}

async function main(): Promise<void> {
  const receiver = await startHttpsReceiver();
  // The receiver keeps every request for tests; a benchmark only needs the count.
  receiver.answer(() => {
    receiver.requests.length = 0;
    return 200;
  });
  const ca = readFileSync(receiver.caFile, 'utf8');

  const sender = new WebhookSender({ timeoutMs: 15_000, allowPrivate: true, ca });
  const target = { botId: 'bench', url: receiver.url, secret: SECRET, allowedIps: null, maxConnections: CONCURRENCY };
  const viaSender: Deliver = async (body) => (await sender.send(target, body, UPDATE_ID)).ok;

  setGlobalDispatcher(new Agent({ connect: { ca } }));
  const viaFetch: Deliver = async (body) => {
    const res = await fetch(receiver.url, { method: 'POST', headers: signedHeaders(body), body });
    await res.arrayBuffer();
    return res.ok;
  };

  const viaHttps: Deliver = (body) =>
    new Promise((resolve) => {
      const req = httpsRequest(
        receiver.url,
        { method: 'POST', headers: signedHeaders(body), ca, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
        },
      );
      req.on('error', () => resolve(false));
      req.end(body);
    });

  const results = [];
  for (const [name, deliver] of [
    ['https', viaHttps],
    ['fetch', viaFetch],
    ['sender', viaSender],
  ] as const) {
    results.push(await run(name, deliver));
  }
  await sender.close();
  await receiver.close();

  const [https, fetchResult, senderResult] = results;
  console.log(`webhook POST path: ${TOTAL} deliveries, ${CONCURRENCY} at a time, local HTTPS receiver`);
  for (const r of results) {
    console.log(`  ${r.name.padEnd(7)} ${r.perSecond.toFixed(0).padStart(7)} deliveries/s  failures ${r.failures}`);
  }
  console.log(`  sender / fetch  ${(senderResult.perSecond / fetchResult.perSecond).toFixed(2)}×`);
  console.log(`  sender / https (new connection each) ${(senderResult.perSecond / https.perSecond).toFixed(2)}×`);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
