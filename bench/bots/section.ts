import { randomUUID } from 'node:crypto';
import { partitionDeliveryTablesByDay } from '@app/testing';
import { Queue } from 'bullmq';
import { baselineQueueOptions, resetBaselineQueueSchema } from '../baselines/queue';
import { BASELINE_SCHEMA, seedSendBaseline } from '../baselines/schema';
import type { BaselineDeliveryJob } from '../baselines/drain-worker';
import { STEADY_RATE, steadyRateTargets } from '../lib/backend';
import type { LoadDriver } from '../lib/load';
import { Accounts, apiClient } from '../lib/api';
import { BENCH_DATABASES, withClient } from '../lib/db';
import {
  BenchProcess,
  freePort,
  httpReady,
  outputReady,
  rssMb,
  scriptArgs,
  sleep,
  startProcess,
} from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import type { Report } from '../lib/report';
import { baselineDbEnv, botEnv, coordinationEnv, dispatcherEnv, StackSettings, startApp } from '../lib/stack';
import type { ProbedRequest } from '../probe';
import { benchIntake, benchSendMessage, benchWakeUp, BotRun, measureDrain, queueUpdates } from './paths';
import { benchHostileRead } from './hostile-read';
import { benchSteadyLatency, findSteadyRate } from './steady';
import { BOT_API, BotWorld, prepareBotWorld } from './world';

export const APP_CHANNEL = 'app';
const BASELINE_CHANNEL = 'baseline';
/** The baselines' Redis keys sit under the run's prefix, apart from the apps' queues. */
const BASELINE_KEY_PREFIX = 'baseline:';

export interface BotSection {
  app: BenchProcess;
  dispatcher?: BenchProcess;
  world: BotWorld;
  idleRssMb: number;
  dispatcherIdleRssMb?: number;
}

export async function startBotSection(settings: StackSettings, receiver: WebhookReceiver): Promise<BotSection> {
  const app = await startApp('bot-api', botEnv(settings));
  if (settings.partitionedDeliveryTables) {
    // The tables are empty until the world below writes. The days production keeps: two of Updates
    // (24 h retention), a month of the delivery log, and a week created ahead.
    await withClient(BENCH_DATABASES.bot, (db) =>
      db.query(partitionDeliveryTablesByDay({ updatesDaysBack: 2, deliveriesDaysBack: 31, daysAhead: 7 })),
    );
    console.log('bot-api: updates, webhook_deliveries and webhook_delivery_attempts partitioned by day');
  }
  const idleRssMb = rssMb(app.pid);
  const world = await prepareBotWorld(apiClient(app.port), new Accounts(settings.secrets.accountJwtSecret), {
    users: 50,
    webhookUrl: receiver.url(APP_CHANNEL),
    webhookSecret: 'bench_webhook_secret',
  });
  return { app, world, idleRssMb };
}

/** The baseline database afresh, with BullMQ's schema when the run's queues live in PostgreSQL. */
async function resetBaselineDb(settings: StackSettings): Promise<void> {
  await withClient(BENCH_DATABASES.baseline, async (db) => {
    await db.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
    await db.query(BASELINE_SCHEMA);
    if (settings.backend === 'postgres') await resetBaselineQueueSchema(db);
  });
}

/** A baseline process's environment: its database, and its queues where the apps' are. */
function baselineEnv(settings: StackSettings): Record<string, string> {
  return { ...baselineDbEnv(), ...coordinationEnv(settings, BASELINE_KEY_PREFIX) };
}

async function sendBaseline(settings: StackSettings): Promise<{ process: BenchProcess; chats: string[] }> {
  await resetBaselineDb(settings);
  const chats = await withClient(BENCH_DATABASES.baseline, (db) => seedSendBaseline(db, 50));
  const process = await startProcess({
    name: 'sendMessage baseline',
    args: scriptArgs('bench/baselines/send-service.ts'),
    env: baselineEnv(settings),
    port: await freePort(),
    ready: httpReady('/ready'),
  });
  return { process, chats };
}

/** The bare BullMQ worker draining `count` queued deliveries to the receiver's baseline channel. */
async function drainBaseline(settings: StackSettings, receiver: WebhookReceiver, count: number, timeoutMs: number) {
  await resetBaselineDb(settings);
  const env = baselineEnv(settings);
  const jobs: Array<{ name: string; data: BaselineDeliveryJob }> = [];
  for (let i = 1; i <= count; i++) {
    const updateId = randomUUID();
    const body = JSON.stringify({ update_id: updateId, type: 'message', message: { text: `baseline ${i}` } });
    jobs.push({ name: 'deliver', data: { deliveryId: i, updateId, body } });
  }
  await withClient(BENCH_DATABASES.baseline, (db) =>
    db.query(`INSERT INTO deliveries (id, payload) SELECT g, '{}'::jsonb FROM generate_series(1, $1::int) AS g`, [
      count,
    ]),
  );
  const queue = new Queue('baseline-deliveries', baselineQueueOptions(env, 'worker', 'drain-baseline-fill'));
  try {
    for (let i = 0; i < jobs.length; i += 1000) {
      await queue.addBulk(jobs.slice(i, i + 1000).map((job) => ({ ...job, opts: { removeOnComplete: true } })));
    }
  } finally {
    await queue.close();
  }
  const worker = await startProcess({
    name: 'drain baseline',
    args: scriptArgs('bench/baselines/drain-worker.ts'),
    env: {
      ...env,
      WEBHOOK_URL: receiver.url(BASELINE_CHANNEL),
      WEBHOOK_CA_FILE: receiver.caFile,
    },
    port: await freePort(),
    ready: outputReady('baseline worker ready'),
  });
  try {
    return await measureDrain(receiver, BASELINE_CHANNEL, count, timeoutMs, worker.pid);
  } finally {
    await worker.stop();
  }
}

export interface BotPathOptions {
  durationSeconds: number;
  /** Updates queued for the webhook bot before the dispatcher starts draining them. */
  drainUpdates: number;
  driver: LoadDriver;
  /** The steady-rate row's messages per second (`--rate`); the mode's own rate when absent. */
  rate?: number;
}

export async function runBotPaths(
  section: BotSection,
  settings: StackSettings,
  receiver: WebhookReceiver,
  report: Report,
  selected: (path: string) => boolean,
  options: BotPathOptions,
): Promise<void> {
  const { durationSeconds, drainUpdates, driver, rate } = options;
  const run: BotRun = { app: section.app, world: section.world, report, durationSeconds, driver };
  if (selected('send')) {
    const baseline = await sendBaseline(settings);
    try {
      await benchSendMessage(run, { port: baseline.process.port, pid: baseline.process.pid, chats: baseline.chats });
    } finally {
      await baseline.process.stop();
    }
  }
  let queued = 0;
  if (selected('intake')) queued = (await benchIntake(run)).ok;
  const drainTimeoutMs = 180_000;
  if (selected('drain')) await queueUpdates(run, queued, drainUpdates);
  // Requests still in flight when a load run ended finish on the server; let them commit first.
  await sleep(1000);
  // The outbox itself says how many deliveries wait (a request in flight when a load run ended counts too).
  queued = await withClient(BENCH_DATABASES.bot, async (db) =>
    Number(
      (await db.query(`SELECT count(*) FROM webhook_deliveries WHERE bot_id = $1`, [section.world.webhook.botId]))
        .rows[0].count,
    ),
  );
  if (selected('drain') || selected('latency') || selected('find-rate') || queued > 0) {
    section.dispatcher = await startApp('bot-dispatcher', dispatcherEnv(settings, receiver.caFile));
    section.dispatcherIdleRssMb = rssMb(section.dispatcher.pid);
    // Whatever was queued drains now, so the latency run starts from an empty queue.
    const drained =
      queued > 0
        ? await measureDrain(receiver, APP_CHANNEL, queued, drainTimeoutMs, section.dispatcher.pid)
        : undefined;
    if (selected('drain') && drained) {
      const baseline = await drainBaseline(settings, receiver, queued, drainTimeoutMs);
      report.add({
        path: `dispatcher drain (${queued} queued Updates)`,
        perSecond: drained.perSecond,
        baselinePerSecond: baseline.perSecond,
        cpuMicros: drained.cpuMicrosPerDelivery,
        note: `deliveries/s (baseline CPU ${baseline.cpuMicrosPerDelivery?.toFixed(0)} µs/delivery) first→last arrival; ${drained.delivered}/${queued} received${drained.complete ? '' : ' (TIMED OUT)'}; baseline ${baseline.delivered}/${queued}`,
      });
    }
  }
  if (selected('latency'))
    await benchSteadyLatency(
      run,
      receiver,
      APP_CHANNEL,
      steadyRateTargets(settings.backend, rate),
      3 * durationSeconds,
    );
  if (selected('find-rate'))
    await findSteadyRate(run, receiver, APP_CHANNEL, STEADY_RATE[settings.backend].ratePerSecond, durationSeconds);
  if (selected('wakeup')) await benchWakeUp(run, 50);
  if (selected('hostile-read')) await benchHostileRead(run);
}

/** sendMessage, a user's message, getUpdates and the deliveries console once each, for the statement counts. */
export function botProbeRequests(section: BotSection) {
  return (app: BenchProcess): ProbedRequest[] => {
    const api = apiClient(app.port);
    const { polling, webhook, users, accounts } = section.world;
    const ok = async (call: Promise<{ status: number; json: unknown }>) => {
      const res = await call;
      if (res.status >= 300) throw new Error(`probe: ${res.status} ${JSON.stringify(res.json)}`);
    };
    return [
      {
        name: 'sendMessage',
        send: (attempt) =>
          ok(
            api.raw('POST', `${BOT_API}/sendMessage`, polling.token, {
              chat_id: polling.chats[1],
              text: `probe ${attempt}`,
            }),
          ),
      },
      {
        name: 'user message intake',
        send: async (attempt) =>
          ok(
            api.raw('POST', `${BOT_API}/client/chats/${polling.chats[1]}/messages`, await accounts.user(users[1]), {
              text: `probe ${attempt}`,
            }),
          ),
      },
      {
        name: 'getUpdates',
        send: () => ok(api.raw('POST', `${BOT_API}/getUpdates`, polling.token, { timeout: 0 })),
      },
      {
        name: 'deliveries console',
        send: async () =>
          ok(api.raw('GET', `${BOT_API}/my/${webhook.botId}/deliveries`, await accounts.user(webhook.owner))),
      },
    ];
  };
}
