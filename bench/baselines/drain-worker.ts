/**
 * Baseline for the dispatcher drain: a bare BullMQ worker. Per job it HMAC-signs the Update body,
 * POSTs it with undici over TLS (one keep-alive Agent, as many connections as a bot's default
 * max_connections) and records the outcome with ONE UPDATE in PostgreSQL. The queue is on the run's
 * backend, with the dispatcher's connection options (see queue.ts).
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Job, Worker } from 'bullmq';
import { Agent, request } from 'undici';
import { baselinePool } from './plumbing';
import { baselineQueueOptions } from './queue';

export interface BaselineDeliveryJob {
  deliveryId: number;
  updateId: string;
  body: string;
}

const secret = process.env.WEBHOOK_SECRET ?? 'baseline-secret';
const target = process.env.WEBHOOK_URL ?? '';
const agent = new Agent({
  connect: { ca: readFileSync(process.env.WEBHOOK_CA_FILE ?? '', 'utf8') },
  connections: Number(process.env.WEBHOOK_CONNECTIONS ?? 40),
  keepAliveTimeout: 60_000,
});
const pool = baselinePool();
const RECORD = {
  name: 'record_outcome',
  text: `UPDATE deliveries SET status = $2, attempts = attempts + 1, last_status_code = $3, updated_at = now()
          WHERE id = $1`,
};

async function deliver(job: Job<BaselineDeliveryJob>): Promise<void> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', secret).update(`${timestamp}.`).update(job.data.body).digest('hex');
  let status = 0;
  try {
    const res = await request(target, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'x-service-signature': signature,
        'x-service-timestamp': timestamp,
        'x-service-update-id': job.data.updateId,
      },
      body: job.data.body,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    status = res.statusCode;
    await res.body.dump();
  } catch {
    status = 0;
  }
  const ok = status >= 200 && status < 300;
  await pool.query({ ...RECORD, values: [job.data.deliveryId, ok ? 'succeeded' : 'retrying', status || null] });
  if (!ok) throw new Error(`delivery ${job.data.deliveryId} failed with ${status}`);
}

const worker = new Worker<BaselineDeliveryJob>('baseline-deliveries', deliver, {
  ...baselineQueueOptions(process.env, 'worker', 'drain-baseline'),
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 50),
  autorun: false,
});
void worker.waitUntilReady().then(() => {
  console.log('baseline worker ready');
  void worker.run();
});
process.once('SIGTERM', () => {
  void worker.close().finally(() => process.exit(0));
});
