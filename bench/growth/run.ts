import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { DrainResult, measureDrain } from '../bots/paths';
import { approvedBot, BOT_API, BotWorld, intakeRequests, privateChats } from '../bots/world';
import { inParallel } from '../lib/api';
import { combineLoads, describeFailures, LoadResult, runLoad } from '../lib/load';
import { BenchProcess, cpuMicros } from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import { formatTable } from '../lib/report';
import { redeemLoad, verifyLoad } from '../voucher/paths';
import type { HeldVoucher, VoucherWorld } from '../voucher/world';
import { seedDeliveries, seedVouchers, seedWaitingUpdates } from './seed';

export interface GrowthRow {
  path: string;
  small: LoadResult;
  large: LoadResult;
  sizes: [string, string];
  /** The machine's 1-minute load average when each measurement started: how much else was running. */
  loads: [number, number];
}

const WARM_UP_SECONDS = 1;

function loadAverage(): number {
  return loadavg()[0];
}

/** large/small of a per-request CPU time, when both were measured. */
function cpuRatio(row: GrowthRow): number | null {
  const small = row.small.cpuMicrosPerRequest;
  const large = row.large.cpuMicrosPerRequest;
  return small && large ? large / small : null;
}

/**
 * Throughput at both sizes, and the server's CPU time per request at both: on a shared box the CPU
 * time per request moves less with the neighbours' load than the rate does. Within 20 % means the
 * larger size keeps at least 0.8× of the rate and costs at most 1.2× of the CPU per request.
 */
export function growthTable(rows: GrowthRow[]): string {
  return formatTable(
    [
      'path',
      'small size',
      'req/s',
      'CPU µs/req',
      'large size',
      'req/s',
      'CPU µs/req',
      'rate large/small',
      'CPU large/small',
      'target',
      'load avg',
      'failures',
    ],
    rows.map((row) => {
      const ratio = row.large.perSecond / row.small.perSecond;
      const cpu = cpuRatio(row);
      const within = ratio >= 0.8 && (cpu === null || cpu <= 1.2);
      return [
        row.path,
        row.sizes[0],
        row.small.perSecond.toFixed(0),
        row.small.cpuMicrosPerRequest?.toFixed(0) ?? '–',
        row.sizes[1],
        row.large.perSecond.toFixed(0),
        row.large.cpuMicrosPerRequest?.toFixed(0) ?? '–',
        `${ratio.toFixed(2)}×`,
        cpu === null ? '–' : `${cpu.toFixed(2)}×`,
        within ? 'within 20 %' : 'MISSED (> 20 %)',
        `${row.loads[0].toFixed(1)} / ${row.loads[1].toFixed(1)}`,
        [describeFailures(row.small), describeFailures(row.large)].filter(Boolean).join(' / '),
      ];
    }),
  );
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`  ${label} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** Redeem and verify with the vouchers table at `sizes[0]` and then `sizes[1]` rows; redeemed vouchers join `used`. */
export async function voucherGrowth(
  app: BenchProcess,
  world: VoucherWorld,
  db: Client,
  supply: { vouchers: HeldVoucher[]; used: Set<string> },
  sizes: [number, number],
  durationSeconds: number,
  explainAtLargeSize: () => Promise<void>,
): Promise<GrowthRow[]> {
  const half = Math.floor(supply.vouchers.length / 2);
  const halves = [supply.vouchers.slice(0, half), supply.vouchers.slice(half)];
  const results: Record<string, LoadResult[]> = { redeem: [], verify: [] };
  const loads: number[] = [];
  for (const [index, size] of sizes.entries()) {
    await timed(`seeded vouchers up to ${size}`, () =>
      seedVouchers(db, world.applicationId, world.manyTemplates[0], size),
    );
    const qr = halves[index].map((v) => v.qrToken);
    // Warm-up (not measured): a long-lived table's hot pages are cached, a freshly loaded one's are not.
    await verifyLoad(app.port, world.appToken, qr, WARM_UP_SECONDS);
    loads.push(loadAverage());
    results.verify.push(await verifyLoad(app.port, world.appToken, qr, durationSeconds, { serverPid: app.pid }));
    const redeem = await redeemLoad(app.port, world.appToken, qr, durationSeconds, { serverPid: app.pid });
    for (const voucher of halves[index].slice(0, redeem.consumed)) supply.used.add(voucher.id);
    results.redeem.push(redeem);
  }
  await explainAtLargeSize();
  const labels: [string, string] = [sizes[0].toLocaleString('en'), sizes[1].toLocaleString('en')];
  return [
    { path: 'redeem', small: results.redeem[0], large: results.redeem[1], sizes: labels, loads: [loads[0], loads[1]] },
    { path: 'verify', small: results.verify[0], large: results.verify[1], sizes: labels, loads: [loads[0], loads[1]] },
  ];
}

/** Polling bots with `waiting` Updates each, made through the public API (users write to them). */
async function pollingBots(world: BotWorld, howMany: number, waiting: number): Promise<Array<{ token: string }>> {
  const { api, accounts, users } = world;
  const user = await accounts.user(users[0]);
  return inParallel(
    Array.from({ length: howMany }, (_, i) => i),
    4,
    async (i) => {
      const bot = await approvedBot(api, accounts, `bench-dev-poller-${i}`, `bench_poller_${i}_bot`);
      const [chat] = await privateChats(api, accounts, bot.botId, [users[0]]);
      for (let n = 0; n < waiting; n++) {
        await api.call('POST', `${BOT_API}/client/chats/${chat}/messages`, user, { text: `waiting ${n}` });
      }
      return { token: bot.token };
    },
  );
}

/** What the drain measurement needs: the receiver the webhook bot's deliveries reach, and how to start a dispatcher. */
export interface GrowthDrain {
  receiver: WebhookReceiver;
  channel: string;
  startDispatcher: () => Promise<BenchProcess>;
}

/** A drain as a row of the growth table: deliveries per second and the dispatcher's CPU per delivery. */
function drainAsLoad(drained: DrainResult, expected: number): LoadResult {
  return {
    ok: drained.delivered,
    failed: Math.max(0, expected - drained.delivered),
    statusCodes: {},
    seconds: drained.perSecond > 0 ? drained.delivered / drained.perSecond : NaN,
    perSecond: drained.perSecond,
    p50: NaN,
    p99: NaN,
    cpuMicrosPerRequest: drained.cpuMicrosPerDelivery,
  };
}

/**
 * The deliveries the intake run left waiting (no dispatcher ran meanwhile), drained by a dispatcher
 * started for it and stopped after.
 */
async function drainQueued(db: Client, world: BotWorld, drain: GrowthDrain): Promise<LoadResult> {
  const waiting = Number(
    (
      await db.query(
        `SELECT count(*) FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`,
        [world.webhook.botId],
      )
    ).rows[0].count,
  );
  // Arrivals of an earlier measurement would count towards this one.
  drain.receiver.arrivals(drain.channel).clear();
  const dispatcher = await drain.startDispatcher();
  try {
    const drained = await measureDrain(drain.receiver, drain.channel, waiting, 180_000, dispatcher.pid);
    return drainAsLoad(drained, waiting);
  } finally {
    await dispatcher.stop();
  }
}

/**
 * getUpdates of polling bots with 100 waiting Updates each (one connection per bot: a second
 * concurrent getUpdates of the same bot is refused with 409) while `sizes.updates` Updates wait
 * across all bots; users' messages to the webhook bot (the intake: an Update and its delivery each)
 * and, with `drain`, the dispatcher draining the deliveries the intake queued; and the deliveries
 * console of a bot while the delivery log holds `sizes.deliveries` rows.
 */
export async function botGrowth(
  app: BenchProcess,
  world: BotWorld,
  db: Client,
  sizes: { updates: [number, number]; deliveries: [number, number] },
  durationSeconds: number,
  explainAtLargeSize: () => Promise<void>,
  drain?: GrowthDrain,
): Promise<GrowthRow[]> {
  const { accounts, webhook } = world;
  const pollers = await pollingBots(world, 8, 100);
  // One autocannon client per bot with one connection each: a bot never has two polls at once.
  const getUpdates = async (seconds: number) => {
    const cpuBefore = cpuMicros(app.pid);
    const perBot = await Promise.all(
      pollers.map((bot) =>
        runLoad({
          port: app.port,
          durationSeconds: seconds,
          connections: 1,
          next: () => ({
            method: 'POST',
            path: `${BOT_API}/getUpdates`,
            headers: { authorization: `Bearer ${bot.token}` },
            // Offset 0 confirms nothing: every call returns the same 100 waiting Updates.
            body: JSON.stringify({ offset: 0, timeout: 0, limit: 100 }),
          }),
        }),
      ),
    );
    return combineLoads(perBot, cpuMicros(app.pid) - cpuBefore);
  };
  const intakeNext = await intakeRequests(world, webhook, (n) => `growth ${n}`);
  const intake = (seconds: number) =>
    runLoad({ port: app.port, durationSeconds: seconds, serverPid: app.pid, next: intakeNext });
  const owner = await accounts.user(webhook.owner);
  const deliveries = (seconds: number) =>
    runLoad({
      port: app.port,
      durationSeconds: seconds,
      serverPid: app.pid,
      next: () => ({
        method: 'GET',
        path: `${BOT_API}/my/${webhook.botId}/deliveries`,
        headers: { authorization: `Bearer ${owner}` },
      }),
    });

  const results: Record<'updates' | 'intake' | 'drain' | 'console', LoadResult[]> = {
    updates: [],
    intake: [],
    drain: [],
    console: [],
  };
  const loads: Record<'updates' | 'console', number[]> = { updates: [], console: [] };
  for (const index of [0, 1]) {
    await timed(`seeded waiting Updates up to ${sizes.updates[index]}`, () =>
      seedWaitingUpdates(db, sizes.updates[index]),
    );
    await getUpdates(WARM_UP_SECONDS);
    loads.updates.push(loadAverage());
    results.updates.push(await getUpdates(durationSeconds));
    await intake(WARM_UP_SECONDS);
    results.intake.push(await intake(durationSeconds));
    if (drain) results.drain.push(await drainQueued(db, world, drain));
    await timed(`seeded delivery rows up to ${sizes.deliveries[index]}`, () =>
      seedDeliveries(db, webhook.botId, sizes.deliveries[index]),
    );
    await deliveries(WARM_UP_SECONDS);
    loads.console.push(loadAverage());
    results.console.push(await deliveries(durationSeconds));
  }
  await explainAtLargeSize();
  const label = (n: number) => n.toLocaleString('en');
  const updateSizes: [string, string] = [`${label(sizes.updates[0])} Updates`, `${label(sizes.updates[1])} Updates`];
  const row = (path: string, of: LoadResult[], sizes: [string, string], at: number[]): GrowthRow => ({
    path,
    small: of[0],
    large: of[1],
    sizes,
    loads: [at[0], at[1]],
  });
  return [
    row(`getUpdates (${pollers.length} bots, 100 waiting each)`, results.updates, updateSizes, loads.updates),
    row('user message intake (webhook bot)', results.intake, updateSizes, loads.updates),
    ...(drain ? [row('dispatcher drain of the intake', results.drain, updateSizes, loads.updates)] : []),
    row(
      'deliveries console',
      results.console,
      [`${label(sizes.deliveries[0])} rows`, `${label(sizes.deliveries[1])} rows`],
      loads.console,
    ),
  ];
}
