import { performance } from 'node:perf_hooks';
import { BASELINE_BOT_TOKEN } from '../baselines/schema';
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
    `baseline CPU ${base.cpuMicrosPerRequest?.toFixed(0)} µs/req, p50 ${base.p50.toFixed(1)} ms, p99 ${base.p99.toFixed(1)} ms ${describeFailures(base)}`,
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
