import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { APP_CHANNEL, BotSection } from '../bots/section';
import { openLoopStream } from '../bots/steady';
import { STEADY_RATE } from '../lib/backend';
import { apiClient } from '../lib/api';
import { BENCH_DATABASES, PG } from '../lib/db';
import type { BenchProcess } from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import { formatTable, Report } from '../lib/report';
import { startSqlCounter } from '../lib/sql-counter';
import { botEnv, dispatcherEnv, StackSettings, startApp, voucherEnv } from '../lib/stack';
import { voucherSupply, VoucherSection } from '../voucher/section';
import { redeemBody, VOUCHER_API } from '../voucher/world';
import { processMeter } from './meters';
import { CountedProcess, measureWindow, UnitCost } from './window';

/** Redeems per second of the redeem window: a steady load well inside what the box carries. */
export const REDEEM_RATE = 50;
/** Seconds of traffic before each window: the JIT compiles the path, the pools and the client connect. */
const LEAD_IN_SECONDS = 3;

export interface CostRun {
  settings: StackSettings;
  receiver: WebhookReceiver;
  report: Report;
  /** The window is 3 × this, as the steady-rate row's. */
  durationSeconds: number;
  /** Hands each process started here to the run's cleanup. */
  track: (process: BenchProcess) => void;
}

/** Starts an app whose database connection runs through a counting proxy of its own. */
async function countedApp(
  run: CostRun,
  name: 'voucher-api' | 'bot-api' | 'bot-dispatcher',
  env: Record<string, string>,
): Promise<{ process: BenchProcess; counted: CountedProcess }> {
  const counter = await startSqlCounter({ host: PG.host, port: PG.port });
  const process = await startApp(name, { ...env, DB_PORT: String(counter.port), MIGRATIONS_RUN: 'false' });
  run.track(process);
  return { process, counted: { meter: processMeter(name, process.pid), counter } };
}

/**
 * Users' messages to the webhook bot at the mode's headroom rate, each delivered to the receiver. The
 * running bot-api and bot-dispatcher are replaced by instances whose connections go through counting
 * proxies (their statements are counted over the whole window, background work included), after a lead-in.
 */
async function messageCost(run: CostRun, bots: BotSection): Promise<{ cost: UnitCost; rate: number }> {
  await bots.dispatcher?.stop();
  await bots.app.stop();
  const api = await countedApp(run, 'bot-api', botEnv(run.settings));
  const dispatcher = await countedApp(run, 'bot-dispatcher', dispatcherEnv(run.settings, run.receiver.caFile));
  bots.app = api.process;
  bots.dispatcher = dispatcher.process;
  const rate = STEADY_RATE[run.settings.backend].ratePerSecond;
  const stream = (seconds: number) =>
    openLoopStream(api.process, bots.world, run.receiver, APP_CHANNEL, {
      ratePerSecond: rate,
      warmUpSeconds: 0,
      seconds,
    });
  try {
    await stream(LEAD_IN_SECONDS);
    const cost = await measureWindow(BENCH_DATABASES.bot, [api.counted, dispatcher.counted], async () => {
      const figures = await stream(3 * run.durationSeconds);
      // Messages delivered: each one's webhook arrived (openLoopStream waits for them).
      return figures.ok - figures.lost;
    });
    return { cost, rate };
  } finally {
    await api.counted.counter.close().catch(() => undefined);
    await dispatcher.counted.counter.close().catch(() => undefined);
  }
}

/** `count` redeems sent open-loop at `rate`, each a fresh voucher and idempotency key: answers the 2xx. */
async function redeemStream(port: number, token: string, qrTokens: string[], rate: number): Promise<number> {
  const client = new Pool(`http://127.0.0.1:${port}`, { connections: 64 });
  const run = randomUUID().slice(0, 8);
  const started = performance.now();
  let ok = 0;
  const inFlight: Array<Promise<void>> = [];
  for (let n = 0; n < qrTokens.length; n++) {
    const wait = started + (n * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      client
        .request({
          method: 'POST',
          path: `${VOUCHER_API}/vouchers/redeem`,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${token}`,
            'idempotency-key': `cost-${run}-${n}`,
          },
          body: redeemBody(qrTokens[n], `cost-${run}-${n}`),
        })
        .then(async (res) => {
          await res.body.dump();
          if (res.statusCode >= 200 && res.statusCode < 300) ok++;
        })
        .catch(() => undefined),
    );
  }
  await Promise.all(inFlight);
  await client.close();
  return ok;
}

/** Redeems at REDEEM_RATE on a voucher-api whose connection runs through a counting proxy, after a lead-in. */
async function redeemCost(run: CostRun, vouchers: VoucherSection): Promise<UnitCost> {
  const leadIn = REDEEM_RATE * LEAD_IN_SECONDS;
  const windowCount = REDEEM_RATE * 3 * run.durationSeconds;
  // Read and issued through the running instance, before it is replaced.
  const held = (await voucherSupply(vouchers, leadIn + windowCount, 300)).slice(0, leadIn + windowCount);
  for (const voucher of held) vouchers.used.add(voucher.id);
  const qr = held.map((voucher) => voucher.qrToken);
  await vouchers.app.stop();
  const api = await countedApp(run, 'voucher-api', voucherEnv(run.settings));
  vouchers.app = api.process;
  vouchers.world.api = apiClient(api.process.port);
  try {
    await redeemStream(api.process.port, vouchers.world.appToken, qr.slice(0, leadIn), REDEEM_RATE);
    return await measureWindow(BENCH_DATABASES.voucher, [api.counted], () =>
      redeemStream(api.process.port, vouchers.world.appToken, qr.slice(leadIn), REDEEM_RATE),
    );
  } finally {
    await api.counted.counter.close().catch(() => undefined);
  }
}

/** PostgreSQL's and Redis' meters, after the apps' in the table; they run no statements of their own. */
const isServer = (name: string) => name.startsWith('PostgreSQL') || name.startsWith('Redis');

const micros = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(0));

/** One table: each process's CPU, statements, WAL and growth per delivered message and per redeem. */
function costTable(message?: UnitCost, redeem?: UnitCost): string {
  const names = [...new Set([...(message?.cpuMicros ?? []), ...(redeem?.cpuMicros ?? [])].map(([name]) => name))].sort(
    (a, b) => Number(isServer(a)) - Number(isServer(b)),
  );
  const cell = (cost: UnitCost | undefined, list: 'cpuMicros' | 'statements', name: string, digits: number) => {
    const found = cost?.[list].find(([n]) => n === name);
    return found ? found[1].toFixed(digits) : '—';
  };
  const rows: string[][] = [
    ...names.map((name) => [
      `CPU µs: ${name}`,
      cell(message, 'cpuMicros', name, 0),
      cell(redeem, 'cpuMicros', name, 0),
    ]),
    ...names
      .filter((name) => !isServer(name))
      .map((name) => [
        `statements: ${name}`,
        cell(message, 'statements', name, 1),
        cell(redeem, 'statements', name, 1),
      ]),
    [
      "PostgreSQL backends of the run's database that closed in the window (CPU not counted)",
      message ? String(message.backendsClosed) : '—',
      redeem ? String(redeem.backendsClosed) : '—',
    ],
    ['WAL bytes (whole server)', micros(message?.walBytes), micros(redeem?.walBytes)],
    ["table + index growth, bytes (the run's database)", micros(message?.growthBytes), micros(redeem?.growthBytes)],
    [
      'tables that grew most (bytes each)',
      (message?.growthTables ?? []).map(([name, bytes]) => `${name} ${bytes.toFixed(0)}`).join(', '),
      (redeem?.growthTables ?? []).map(([name, bytes]) => `${name} ${bytes.toFixed(0)}`).join(', '),
    ],
    [
      'window',
      message ? `${message.units} delivered in ${message.seconds.toFixed(1)} s` : '—',
      redeem ? `${redeem.units} redeemed in ${redeem.seconds.toFixed(1)} s` : '—',
    ],
    [
      'machine busy over the window (all cores)',
      message ? `${message.machineBusyPercent.toFixed(0)} %` : '—',
      redeem ? `${redeem.machineBusyPercent.toFixed(0)} %` : '—',
    ],
  ];
  return formatTable(['per unit of work', 'message → webhook', 'redeem'], rows);
}

/**
 * The cost row (`--only cost`): what one user message delivered to a webhook and one redeem cost each
 * process. Runs last: it replaces the apps with instances behind counting proxies.
 */
export async function runCost(run: CostRun, sections: { bots?: BotSection; vouchers?: VoucherSection }): Promise<void> {
  const message = sections.bots ? await messageCost(run, sections.bots) : undefined;
  const redeem = sections.vouchers ? await redeemCost(run, sections.vouchers) : undefined;
  run.report.section(
    `Cost per unit of work (messages at ${message?.rate ?? '—'}/s, redeems at ${REDEEM_RATE}/s, ` +
      `${3 * run.durationSeconds} s windows after a ${LEAD_IN_SECONDS} s lead-in; CPU and WAL of the whole ` +
      'PostgreSQL server, so other databases on it count too)',
    costTable(message?.cost, redeem),
  );
}
