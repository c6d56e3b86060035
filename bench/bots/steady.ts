import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { HIGH_RATE_TARGETS, SteadyRateTargets, StreamTargets } from '../lib/backend';
import { quantile } from '../lib/load';
import { BenchProcess, cpuMicros, machineBusyPercentSince, machineCpuTicks } from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import type { Report, Row } from '../lib/report';
import { BotWorld, intakeRequests } from './world';

/** Seconds at the steady rate before the measured window: JIT compilation of the path and the client's connections. */
export const STEADY_WARM_UP_SECONDS = 5;

/** Probe numbers are unique over the run, so a stream never counts a webhook of an earlier one. */
let nextProbe = 0;

export interface StreamFigures {
  ratePerSecond: number;
  seconds: number;
  perSecond: number;
  postP50: number;
  postP99: number;
  webhookP50: number;
  webhookP99: number;
  warmUpPostP99: number;
  warmUpWebhookP99: number;
  ok: number;
  failed: number;
  lost: number;
  cpuMicrosPerMessage: number;
  /** How busy the whole machine was over the measured window (every process, the load generator's too). */
  machineBusyPercent: number;
}

/**
 * Users' messages to the webhook bot at a steady rate, sent open-loop (on schedule, whether or not
 * earlier ones were answered, as independent users would): latency of each POST from its scheduled
 * time, and from then to its signed webhook arriving; an Update that never arrives is lost. The first
 * `warmUpSeconds` of the stream run at the same rate without a pause before the measured window; their
 * own figures are answered beside the measured ones, never hidden.
 */
export async function openLoopStream(
  app: BenchProcess,
  world: BotWorld,
  receiver: WebhookReceiver,
  channel: string,
  { ratePerSecond, warmUpSeconds, seconds }: { ratePerSecond: number; warmUpSeconds: number; seconds: number },
): Promise<StreamFigures> {
  const warmUpCount = Math.round(ratePerSecond * warmUpSeconds);
  const total = warmUpCount + Math.round(ratePerSecond * seconds);
  const first = nextProbe;
  nextProbe += total;
  const next = await intakeRequests(world, world.webhook, (n) => `probe-${first + n}-`);
  const client = new Pool(`http://127.0.0.1:${app.port}`, { connections: 256 });
  const scheduledAt = new Map<string, number>();
  const postLatencies: number[] = [];
  const warmUpLatencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  let measuredFrom = started;
  let cpuBefore = cpuMicros(app.pid);
  let machineBefore = machineCpuTicks();
  const inFlight: Array<Promise<void>> = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const measured = n >= warmUpCount;
    if (n === warmUpCount) {
      measuredFrom = due;
      cpuBefore = cpuMicros(app.pid);
      machineBefore = machineCpuTicks();
    }
    const request = next();
    scheduledAt.set(`probe-${first + n}`, due);
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
  const cpu = cpuMicros(app.pid) - cpuBefore;
  const machineBusyPercent = machineBusyPercentSince(machineBefore);
  await client.close();

  const arrivals = receiver.arrivals(channel);
  const arrivedCount = () => [...scheduledAt.keys()].filter((id) => arrivals.has(id)).length;
  const deadline = Date.now() + 15_000;
  while (arrivedCount() < ok && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const delays: number[] = [];
  const warmUpDelays: number[] = [];
  let arrived = 0;
  for (const [id, due] of scheduledAt) {
    const arrivedAt = arrivals.get(id);
    if (arrivedAt === undefined) continue;
    arrived++;
    (due >= measuredFrom ? delays : warmUpDelays).push(arrivedAt - due);
  }
  const measuredCount = total - warmUpCount;
  return {
    ratePerSecond,
    seconds,
    perSecond: measuredCount / elapsed,
    postP50: quantile(postLatencies, 0.5),
    postP99: quantile(postLatencies, 0.99),
    webhookP50: quantile(delays, 0.5),
    webhookP99: quantile(delays, 0.99),
    warmUpPostP99: quantile(warmUpLatencies, 0.99),
    warmUpWebhookP99: quantile(warmUpDelays, 0.99),
    ok,
    failed,
    lost: Math.max(0, ok - arrived),
    cpuMicrosPerMessage: cpu / measuredCount,
    machineBusyPercent,
  };
}

/** Within POST and webhook p99 targets and the machine's busy share, none lost, no POST failed. */
export function withinTargets(figures: StreamFigures, targets: StreamTargets): boolean {
  const webhookOk = targets.webhookP99Ms === undefined || figures.webhookP99 <= targets.webhookP99Ms;
  const busyOk = targets.maxBusyPercent === undefined || figures.machineBusyPercent <= targets.maxBusyPercent;
  return figures.postP99 <= targets.postP99Ms && webhookOk && busyOk && figures.lost === 0 && figures.failed === 0;
}

/**
 * A row of the table for a stream; `webhookP99Ms` absent: the webhook p99 is shown without a target;
 * `maxBusyPercent` set: the machine's busy share is held to it, and the row says whether it met them all.
 */
export function streamRow(path: string, figures: StreamFigures, targets: StreamTargets, extra = ''): Row {
  const webhookTarget = targets.webhookP99Ms === undefined ? '' : ` (≤ ${targets.webhookP99Ms})`;
  const busyTarget = targets.maxBusyPercent === undefined ? '' : ` (≤ ${targets.maxBusyPercent})`;
  const verdict =
    targets.maxBusyPercent === undefined ? '' : withinTargets(figures, targets) ? '; targets met' : '; MISSED';
  return {
    path,
    perSecond: figures.perSecond,
    p50: figures.postP50,
    p99: figures.postP99,
    cpuMicros: figures.cpuMicrosPerMessage,
    note:
      `POST p99 ${figures.postP99.toFixed(1)} ms (≤ ${targets.postP99Ms}); webhook p50 ${figures.webhookP50.toFixed(1)} ms, ` +
      `p99 ${figures.webhookP99.toFixed(1)} ms${webhookTarget}; lost ${figures.lost} of ${figures.ok}; ` +
      `machine ${figures.machineBusyPercent.toFixed(0)} % busy${busyTarget}` +
      `${figures.failed > 0 ? `; ${figures.failed} POSTs failed` : ''}${verdict}${extra}`,
  };
}

export interface StreamRun {
  app: BenchProcess;
  world: BotWorld;
  report: Report;
}

/** The steady-rate row: a warm-up at the rate, then `seconds` measured. */
export async function benchSteadyLatency(
  run: StreamRun,
  receiver: WebhookReceiver,
  channel: string,
  targets: SteadyRateTargets,
  seconds: number,
): Promise<void> {
  const { ratePerSecond } = targets;
  const figures = await openLoopStream(run.app, run.world, receiver, channel, {
    ratePerSecond,
    warmUpSeconds: STEADY_WARM_UP_SECONDS,
    seconds,
  });
  const warmUp =
    `; after a ${STEADY_WARM_UP_SECONDS} s warm-up at the same rate (POST p99 ${figures.warmUpPostP99.toFixed(1)} ms, ` +
    `webhook p99 ${figures.warmUpWebhookP99.toFixed(1)} ms)`;
  run.report.add(streamRow(`messages → webhook at ${ratePerSecond}/s for ${seconds} s`, figures, targets, warmUp));
}

/** Seconds at each step's rate before its window: the previous step's backlog must not count. */
const SEARCH_LEAD_IN_SECONDS = 2;
const SEARCH_STEP = 100;
/** Bounds the search's time on a machine that sustains far more than it was sized for. */
const SEARCH_MAX_RATE = 2000;

/**
 * Steps the steady rate up from `fromRate` by SEARCH_STEP, a short window each, until a step misses
 * HIGH_RATE_TARGETS (POST p99, webhook p99, none lost): every step is a row, and the highest rate met
 * is printed as the search's answer.
 */
export async function findSteadyRate(
  run: StreamRun,
  receiver: WebhookReceiver,
  channel: string,
  fromRate: number,
  windowSeconds: number,
): Promise<number | undefined> {
  let sustained: number | undefined;
  for (let rate = fromRate; rate <= SEARCH_MAX_RATE; rate += SEARCH_STEP) {
    const figures = await openLoopStream(run.app, run.world, receiver, channel, {
      ratePerSecond: rate,
      // The first step may meet processes that have served no message yet (`--only find-rate`).
      warmUpSeconds: rate === fromRate ? STEADY_WARM_UP_SECONDS : SEARCH_LEAD_IN_SECONDS,
      seconds: windowSeconds,
    });
    const met = withinTargets(figures, HIGH_RATE_TARGETS);
    run.report.add(
      streamRow(
        `rate search: ${rate}/s for ${windowSeconds} s`,
        figures,
        HIGH_RATE_TARGETS,
        met ? '; met' : '; MISSED',
      ),
    );
    if (!met) break;
    sustained = rate;
  }
  run.report.add({
    path: 'highest steady rate within the targets',
    perSecond: sustained,
    note:
      sustained === undefined
        ? `none: the first step (${fromRate}/s) missed`
        : `messages/s with POST p99 ≤ ${HIGH_RATE_TARGETS.postP99Ms} ms, webhook p99 ≤ ${HIGH_RATE_TARGETS.webhookP99Ms} ms, none lost` +
          `${sustained + SEARCH_STEP > SEARCH_MAX_RATE ? ` (the search stops at ${SEARCH_MAX_RATE}/s)` : ''}`,
  });
  return sustained;
}
