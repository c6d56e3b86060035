import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { BASELINE_BOT_TOKEN } from '../baselines/schema';
import type { SteadyRateTargets } from '../lib/backend';
import { describeFailures, LoadDriver, LoadResult, quantile, runLoad } from '../lib/load';
import { BenchProcess, cpuMicros } from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import { Report, rowFromLoad } from '../lib/report';
import { BOT_API, BotWorld, intakeRequests, sendMessageRequests } from './world';

export interface BotRun {
  app: BenchProcess;
  world: BotWorld;
  report: Report;
  durationSeconds: number;
  /** The load generator of sendMessage and its baseline (`--driver`); the other paths keep autocannon. */
  driver: LoadDriver;
}

export async function benchSendMessage(run: BotRun, baseline: { port: number; pid: number; chats: string[] }) {
  const app = await runLoad({
    port: run.app.port,
    next: sendMessageRequests(run.world.polling),
    durationSeconds: run.durationSeconds,
    serverPid: run.app.pid,
    driver: run.driver,
    repeatable: true,
  });
  const base = await runLoad({
    port: baseline.port,
    next: sendMessageRequests({ botId: '', owner: '', token: BASELINE_BOT_TOKEN, chats: baseline.chats }),
    durationSeconds: run.durationSeconds,
    serverPid: baseline.pid,
    driver: run.driver,
    repeatable: true,
  });
  const failures = [describeFailures(app), base.failed > 0 ? `baseline ${describeFailures(base)}` : ''];
  run.report.add(rowFromLoad('sendMessage', app, base, failures.filter(Boolean).join('; ')));
  run.report.section(
    'sendMessage baseline',
    `baseline CPU ${base.cpuMicrosPerRequest?.toFixed(0)} µs/req, p50 ${base.p50} ms, p99 ${base.p99} ms ${describeFailures(base)}`,
  );
}

/** Users' messages to the webhook bot while no dispatcher runs: their Updates wait in the queue. */
export async function benchIntake(run: BotRun): Promise<LoadResult> {
  const result = await runLoad({
    port: run.app.port,
    next: await intakeRequests(run.world, run.world.webhook),
    durationSeconds: run.durationSeconds,
    serverPid: run.app.pid,
  });
  run.report.add(rowFromLoad('user message intake', result, undefined, describeFailures(result)));
  return result;
}

/** More user messages (not measured) until `total` Updates wait for the webhook bot. */
export async function queueUpdates(run: BotRun, already: number, total: number): Promise<number> {
  if (already >= total) return already;
  const more = await runLoad({
    port: run.app.port,
    next: await intakeRequests(run.world, run.world.webhook, (n) => `queued ${n}`),
    durationSeconds: 120,
    maxRequests: total - already,
  });
  return already + more.ok;
}

export interface DrainResult {
  delivered: number;
  perSecond: number;
  complete: boolean;
  cpuMicrosPerDelivery: number | null;
}

/** Deliveries per second from the first to the last arrival of `expected` Updates on a receiver channel. */
export async function measureDrain(
  receiver: WebhookReceiver,
  channel: string,
  expected: number,
  timeoutMs: number,
  workerPid: number,
): Promise<DrainResult> {
  const cpuBefore = cpuMicros(workerPid);
  const complete = await receiver.waitFor(channel, expected, timeoutMs);
  const cpu = cpuMicros(workerPid) - cpuBefore;
  const times = [...receiver.arrivals(channel).values()];
  const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
  return {
    delivered: times.length,
    perSecond: seconds > 0 ? times.length / seconds : NaN,
    complete,
    cpuMicrosPerDelivery: times.length > 0 ? cpu / times.length : null,
  };
}

/** Seconds at the steady rate before the measured window: JIT compilation of the path and the client's connections. */
export const STEADY_WARM_UP_SECONDS = 5;

/**
 * A steady rate of user messages to the webhook bot with the dispatcher running, sent open-loop (on
 * schedule, whether or not earlier ones were answered, as independent users would): latency of each
 * POST from its scheduled time, and from then to its signed webhook arriving; an Update that never
 * arrives is lost. The stream starts STEADY_WARM_UP_SECONDS before the measured window without a
 * pause between the two; the warm-up's own figures are printed beside the measured ones, never hidden.
 */
export async function benchSteadyLatency(
  run: BotRun,
  receiver: WebhookReceiver,
  channel: string,
  { ratePerSecond, postP99Ms, webhookP99Ms }: SteadyRateTargets,
  seconds: number,
) {
  const next = await intakeRequests(run.world, run.world.webhook, (n) => `probe-${n}-`);
  const client = new Pool(`http://127.0.0.1:${run.app.port}`, { connections: 256 });
  const warmUpCount = Math.round(ratePerSecond * STEADY_WARM_UP_SECONDS);
  const total = warmUpCount + Math.round(ratePerSecond * seconds);
  const scheduledAt = new Map<string, number>();
  const postLatencies: number[] = [];
  const warmUpLatencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  let measuredFrom = started;
  let cpuBefore = cpuMicros(run.app.pid);
  const inFlight: Array<Promise<void>> = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const measured = n >= warmUpCount;
    if (n === warmUpCount) {
      measuredFrom = due;
      cpuBefore = cpuMicros(run.app.pid);
    }
    const request = next();
    scheduledAt.set(`probe-${n}`, due);
    inFlight.push(
      client
        .request({
          method: request.method,
          path: request.path,
          headers: { 'content-type': 'application/json', ...request.headers },
          body: request.body,
        })
        .then(async (res) => {
          await res.body.dump();
          (measured ? postLatencies : warmUpLatencies).push(performance.now() - due);
          if (res.statusCode >= 200 && res.statusCode < 300) ok++;
          else failed++;
        })
        .catch(() => {
          failed++;
        }),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - measuredFrom) / 1000;
  const cpu = cpuMicros(run.app.pid) - cpuBefore;
  await client.close();

  const arrivals = receiver.arrivals(channel);
  const probesArrived = () => [...arrivals.keys()].filter((id) => id.startsWith('probe-')).length;
  const deadline = Date.now() + 15_000;
  while (probesArrived() < ok && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const delays: number[] = [];
  const warmUpDelays: number[] = [];
  let arrived = 0;
  for (const [id, arrivedAt] of arrivals) {
    const due = scheduledAt.get(id);
    if (due === undefined) continue;
    arrived++;
    (due >= measuredFrom ? delays : warmUpDelays).push(arrivedAt - due);
  }
  const lost = Math.max(0, ok - arrived);
  const measuredCount = total - warmUpCount;
  const postP99 = quantile(postLatencies, 0.99);
  run.report.add({
    path: `messages → webhook at ${ratePerSecond}/s for ${seconds} s`,
    perSecond: measuredCount / elapsed,
    p50: quantile(postLatencies, 0.5),
    p99: postP99,
    cpuMicros: cpu / measuredCount,
    note:
      `POST p99 ${postP99.toFixed(1)} ms (≤ ${postP99Ms}); webhook p50 ${quantile(delays, 0.5).toFixed(1)} ms, ` +
      `p99 ${quantile(delays, 0.99).toFixed(1)} ms (≤ ${webhookP99Ms}); lost ${lost} of ${ok}${failed > 0 ? `; ${failed} POSTs failed` : ''}; ` +
      `after a ${STEADY_WARM_UP_SECONDS} s warm-up at the same rate (POST p99 ${quantile(warmUpLatencies, 0.99).toFixed(1)} ms, ` +
      `webhook p99 ${quantile(warmUpDelays, 0.99).toFixed(1)} ms)`,
  });
}

/** A waiting getUpdates woken by a user message, against an immediate getUpdates round trip. */
export async function benchWakeUp(run: BotRun, iterations: number) {
  const { api, accounts, users, polling } = run.world;
  const user = await accounts.user(users[0]);
  let offset = 0;
  const poll = async (timeout: number) => {
    const updates = (await api.call('POST', `${BOT_API}/getUpdates`, polling.token, { offset, timeout })) as Array<{
      update_seq: number;
    }>;
    if (updates.length > 0) offset = updates[updates.length - 1].update_seq + 1;
    return updates;
  };
  while ((await poll(0)).length > 0);
  const immediate: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await poll(0);
    immediate.push(performance.now() - started);
  }
  const wake: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let returnedAt = 0;
    const waiting = poll(10).then((updates) => {
      returnedAt = performance.now();
      return updates;
    });
    await new Promise((r) => setTimeout(r, 15));
    const sentAt = performance.now();
    await api.call('POST', `${BOT_API}/client/chats/${polling.chats[0]}/messages`, user, { text: `wake ${i}` });
    const updates = await waiting;
    if (updates.length === 0) throw new Error('a waiting getUpdates returned without the Update');
    wake.push(returnedAt - sentAt);
  }
  const immediateP50 = quantile(immediate, 0.5);
  run.report.add({
    path: 'getUpdates wake-up (message → poll returns)',
    p50: quantile(wake, 0.5),
    p99: quantile(wake, 0.99),
    ratio: quantile(wake, 0.5) / immediateP50,
    note: `ratio = wake p50 / immediate getUpdates p50 (${immediateP50.toFixed(1)} ms, p99 ${quantile(immediate, 0.99).toFixed(1)} ms), ${iterations} samples`,
  });
}
