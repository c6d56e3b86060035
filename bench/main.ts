/**
 * npm run bench -- [--only redeem,sealed-redeem,issue,verify,send,intake,drain,latency,wakeup,statements,growth,fresh,
 *                          formatting,hostile-read,unnamed-statements,cost]
 *                  [--duration <s>] [--skip-growth] [--no-build] [--drain-updates <n>] [--backend redis|postgres]
 *                  [--tracing <ratio>] [--driver autocannon|wrk] [--rate <n>] [--find-rate]
 *                  [--growth-updates <small>,<large>] [--growth-deliveries <small>,<large>] [--skip-voucher-growth]
 *                  [--partitioned-delivery-tables]
 *
 * Builds and starts voucher-api, bot-api and bot-dispatcher from their production build on their own
 * databases and, in the Redis mode, their own Redis prefix (`--backend postgres`: the PostgreSQL-only
 * mode, no Redis at all), prepares data through the public APIs, drives each hot path with
 * autocannon (or wrk for verify, redeem and sendMessage: `--driver wrk`) on 127.0.0.1 against a
 * hand-written baseline measured in the same run, and prints one table. `--tracing 0.1` runs the apps with OpenTelemetry on, sampling that ratio of traces and
 * exporting them to a sink that drops them. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { benchFreshApps } from './bots/fresh';
import { runCost } from './cost/section';
import { benchParsers } from './formatting/parsers';
import { botProbeRequests, runBotPaths, startBotSection, BotSection } from './bots/section';
import { DEFAULT_GROWTH_SIZES, GrowthSizes, runGrowth } from './growth/section';
import { BenchBackend, deleteRunKeys, describeBackend, parseBackend } from './lib/backend';
import { BENCH_DATABASES, dropDatabase, PG, recreateDatabase } from './lib/db';
import { parseDriver } from './lib/load';
import { memoryBreakdown, MEMORY_COLUMNS, memoryRow } from './lib/memory';
import { BenchProcess, connectionsTo, removeProcessLogs, ROOT, rssMb, stopAllOnExit } from './lib/processes';
import { startWebhookReceiver, WebhookReceiver } from './lib/receiver';
import { formatTable, Report } from './lib/report';
import { probeInstanceEnv, StackSettings, startApp, throwAwaySecrets, traceApps } from './lib/stack';
import { startTraceSink } from './lib/trace-sink';
import { benchPreparedStatements } from './prepared-statements';
import { IDLE_WINDOW_MS, probeStatements, ProbeResult, statementReport } from './probe';
import {
  runVoucherPaths,
  startVoucherSection,
  voucherProbeRequests,
  voucherSupply,
  VoucherSection,
} from './voucher/section';

const RUN_LIMIT_MINUTES = 30;
/** Bulk rows seeded per minute, at the least, on a busy 2-core box: growth sizes beyond the defaults add their time to the bound. */
const SEEDED_ROWS_PER_MINUTE = 400_000;

/** The bound of the whole run: the usual one, plus the seeding of growth sizes larger than the defaults. */
function runLimitMinutes(growth: GrowthSizes | undefined): number {
  if (!growth) return RUN_LIMIT_MINUTES;
  const extra =
    Math.max(0, growth.updates[1] - DEFAULT_GROWTH_SIZES.updates[1]) +
    Math.max(0, growth.deliveries[1] - DEFAULT_GROWTH_SIZES.deliveries[1]);
  return RUN_LIMIT_MINUTES + Math.ceil(extra / SEEDED_ROWS_PER_MINUTE);
}
const ALL_PATHS = [
  'issue',
  'verify',
  'redeem',
  'sealed-redeem',
  'send',
  'intake',
  'drain',
  'latency',
  'wakeup',
  'statements',
  'growth',
  'fresh',
  'formatting',
  'hostile-read',
  'unnamed-statements',
  'cost',
];

/** `<small>,<large>`: two row counts, the second larger. */
function parseSizes(flag: string, value: string | undefined): [number, number] | undefined {
  if (value === undefined) return undefined;
  const sizes = value.split(',').map((n) => Number(n.trim().replace(/_/g, '')));
  if (sizes.length !== 2 || !sizes.every((n) => Number.isInteger(n) && n >= 1) || sizes[0] >= sizes[1])
    throw new Error(`${flag} takes two row counts, the smaller first: 100000,10000000`);
  return [sizes[0], sizes[1]];
}

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      duration: { type: 'string', default: '10' },
      'skip-growth': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'drain-updates': { type: 'string', default: '10000' },
      backend: { type: 'string', default: 'redis' },
      tracing: { type: 'string' },
      driver: { type: 'string', default: 'autocannon' },
      rate: { type: 'string' },
      'find-rate': { type: 'boolean', default: false },
      'growth-updates': { type: 'string' },
      'growth-deliveries': { type: 'string' },
      'skip-voucher-growth': { type: 'boolean', default: false },
      'partitioned-delivery-tables': { type: 'boolean', default: false },
    },
  });
  const only = values.only ? values.only.split(',').map((p) => p.trim()) : ALL_PATHS;
  // The rate search is long (a window per step): it runs when named, never by default.
  const known = [...ALL_PATHS, 'find-rate'];
  const unknown = only.filter((p) => !known.includes(p));
  if (unknown.length > 0) throw new Error(`unknown path(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const durationSeconds = Number(values.duration);
  if (!Number.isFinite(durationSeconds) || durationSeconds < 1) throw new Error('--duration must be ≥ 1 second');
  const paths = new Set(only.filter((p) => !(p === 'growth' && values['skip-growth'])));
  if (values['find-rate']) paths.add('find-rate');
  const drainUpdates = Number(values['drain-updates']);
  if (!Number.isInteger(drainUpdates) || drainUpdates < 1)
    throw new Error('--drain-updates must be a positive integer');
  const backend: BenchBackend = parseBackend(values.backend ?? 'redis');
  const tracing = values.tracing === undefined ? undefined : Number(values.tracing);
  if (tracing !== undefined && !(tracing >= 0 && tracing <= 1))
    throw new Error('--tracing must be a ratio from 0 to 1');
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && !(Number.isInteger(rate) && rate >= 1))
    throw new Error('--rate must be a whole number of messages per second, at least 1');
  const growth: GrowthSizes = {
    updates: parseSizes('--growth-updates', values['growth-updates']) ?? DEFAULT_GROWTH_SIZES.updates,
    deliveries: parseSizes('--growth-deliveries', values['growth-deliveries']) ?? DEFAULT_GROWTH_SIZES.deliveries,
    vouchers: !values['skip-voucher-growth'],
  };
  return {
    growth,
    driver: parseDriver(values.driver ?? 'autocannon'),
    rate,
    tracing,
    selected: (path: string) => paths.has(path),
    durationSeconds,
    drainUpdates,
    build: !values['no-build'],
    backend,
    partitionedDeliveryTables: values['partitioned-delivery-tables'] ?? false,
  };
}

async function main(): Promise<void> {
  const { selected, durationSeconds, drainUpdates, build, backend, tracing, driver, rate, growth, ...schema } =
    options();
  const settings: StackSettings = {
    secrets: throwAwaySecrets(),
    backend,
    partitionedDeliveryTables: schema.partitionedDeliveryTables,
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisKeyPrefix: `bench:${randomUUID().slice(0, 8)}:`,
  };
  const started: BenchProcess[] = [];
  let receiver: WebhookReceiver | undefined;
  const traceSink = tracing === undefined ? undefined : await startTraceSink();
  if (traceSink) traceApps(traceSink.url, tracing!);
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    for (const process of [...started].reverse()) await process.stop().catch(() => undefined);
    await receiver?.close().catch(() => undefined);
    await traceSink?.close().catch(() => undefined);
    for (const name of Object.values(BENCH_DATABASES)) await dropDatabase(name).catch(() => undefined);
    await deleteRunKeys(settings.backend, settings.redisUrl, settings.redisKeyPrefix).catch(() => undefined);
    removeProcessLogs();
  };
  stopAllOnExit(cleanup);
  // Every wait of the bench is bounded; this is the bound of the whole run.
  const runLimit = runLimitMinutes(selected('growth') ? growth : undefined);
  const watchdog = setTimeout(() => {
    console.error(`the bench did not finish within ${runLimit} minutes; stopping`);
    void cleanup().finally(() => process.exit(1));
  }, runLimit * 60_000);
  watchdog.unref();

  const report = new Report();
  const benchStarted = Date.now();
  const loadAtStart = loadavg()[0];
  try {
    console.log(`coordination: ${describeBackend(backend)}`);
    console.log(`load generator: ${driver} for verify, redeem and sendMessage and their baselines`);
    if (tracing !== undefined) console.log(`tracing: on, ${tracing * 100} % of traces sampled (OTLP to a sink)`);
    if (build) {
      console.log('building (npm run build)…');
      execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    if (selected('formatting')) {
      console.log('formatting: each parser on its worst-case texts, in this process…');
      benchParsers(report);
    }
    for (const name of Object.values(BENCH_DATABASES)) await recreateDatabase(name);
    receiver = await startWebhookReceiver();
    const needs = (...paths: string[]) => paths.some(selected);
    const probeOrGrowth = needs('statements', 'growth');

    let vouchers: VoucherSection | undefined;
    if (needs('issue', 'verify', 'redeem', 'sealed-redeem', 'unnamed-statements', 'cost') || probeOrGrowth) {
      console.log('voucher-api: preparing data through the public API…');
      vouchers = await startVoucherSection(settings);
      started.push(vouchers.app);
      await runVoucherPaths(vouchers, settings, report, selected, durationSeconds, driver);
    }
    let bots: BotSection | undefined;
    const botPaths = ['send', 'intake', 'drain', 'latency', 'find-rate', 'wakeup', 'fresh', 'hostile-read', 'cost'];
    if (needs(...botPaths, 'unnamed-statements') || probeOrGrowth) {
      console.log('bot-api: preparing bots and chats through the public API…');
      bots = await startBotSection(settings, receiver);
      started.push(bots.app);
      await runBotPaths(bots, settings, receiver, report, selected, { durationSeconds, drainUpdates, driver, rate });
      if (bots.dispatcher) started.push(bots.dispatcher);
    }
    if (selected('unnamed-statements')) {
      console.log('verify, redeem and sendMessage with unnamed statements (DB_PREPARED_STATEMENTS=unnamed)…');
      await benchPreparedStatements({ vouchers, bots }, settings, report, durationSeconds, driver);
    }

    const probes: ProbeResult[] = [];
    if (probeOrGrowth && vouchers && bots) {
      console.log('counting SQL statements per request through the counting proxy…');
      const held = await voucherSupply(vouchers, 10, 30);
      // Only the statement counts report the idle window; growth probes the requests alone.
      const idleMs = selected('statements') ? IDLE_WINDOW_MS : 0;
      probes.push(
        ...(await probeStatements(
          (dbPort) => startApp('voucher-api', probeInstanceEnv('voucher-api', settings, dbPort)),
          voucherProbeRequests(vouchers, held),
          idleMs,
        )),
        ...(await probeStatements(
          (dbPort) => startApp('bot-api', probeInstanceEnv('bot-api', settings, dbPort)),
          botProbeRequests(bots),
          idleMs,
        )),
      );
      report.section(
        'SQL statements per request (single request, idle app, after one warm-up request)',
        statementReport(probes),
      );
    }

    if (selected('growth') && vouchers && bots)
      await runGrowth(vouchers, bots, settings, report, durationSeconds, receiver, growth);

    const rss: string[][] = [];
    if (vouchers) rss.push(['voucher-api', vouchers.idleRssMb.toFixed(0), rssMb(vouchers.app.pid).toFixed(0)]);
    if (bots) rss.push(['bot-api', bots.idleRssMb.toFixed(0), rssMb(bots.app.pid).toFixed(0)]);
    if (bots?.dispatcher)
      rss.push(['bot-dispatcher', (bots.dispatcherIdleRssMb ?? NaN).toFixed(0), rssMb(bots.dispatcher.pid).toFixed(0)]);
    const breakdown: string[][] = [];
    const measured: Array<[string, BenchProcess | undefined]> = [
      ['voucher-api', vouchers?.app],
      ['bot-api', bots?.app],
      ['bot-dispatcher', bots?.dispatcher],
    ];
    for (const [name, app] of measured) {
      if (app) breakdown.push([name, ...memoryRow(await memoryBreakdown(app.pid, app.port))]);
    }
    report.section(
      'Memory after load (MB): resident anonymous vs. file-backed, V8 heap by space, external (Buffers)',
      formatTable(['process', ...MEMORY_COLUMNS], breakdown),
    );
    report.section(
      'RSS (MB; target < 250 after load)',
      formatTable(
        ['process', 'idle', 'after load'],
        rss.map(([name, idle, after]) => [name, idle, `${after}${Number(after) >= 250 ? ' (over)' : ''}`]),
      ),
    );
    report.section(
      'PostgreSQL connections per process after load (database pool, queue clients, listening connections)',
      formatTable(
        ['process', 'connections'],
        measured.flatMap(([name, app]) => (app ? [[name, String(connectionsTo(app.pid, PG.port))]] : [])),
      ),
    );
    if (selected('fresh') && bots) {
      console.log('bot-api and bot-dispatcher: fresh processes, measured from readiness…');
      await benchFreshApps(bots, settings, receiver, report, (process) => started.push(process));
    }
    if (selected('cost')) {
      console.log('cost per message and per redeem: the apps behind counting proxies…');
      const track = (process: BenchProcess) => started.push(process);
      await runCost({ settings, receiver, report, durationSeconds, track }, { bots, vouchers });
    }
    report.section(
      'Machine',
      `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ` +
        `${describeBackend(backend)}; load generator ${driver}; ` +
        `${durationSeconds} s per path; whole run ${((Date.now() - benchStarted) / 1000).toFixed(0)} s; ` +
        `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`,
    );
    report.print();
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
