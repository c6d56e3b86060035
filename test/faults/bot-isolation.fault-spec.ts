import { testCertificate } from '@app/testing';
import { queueKeyPrefix } from '@app/coordination';
import { deliverJobId, WEBHOOK_QUEUE } from '@app/bot-delivery';
import IORedis from 'ioredis';
import { DeliveryQueue } from '../../apps/bot-api/src/deliveries/delivery-queue';
import { callBot } from '../../apps/bot-api/test/app-context';
import {
  DeliveryStack,
  hookBot,
  HookBot,
  percentile,
  ReceiverProcess,
  report,
  say,
  sleep,
  startDeliveryStack,
  startReceiverProcess,
} from './fault-harness';

/** With the measurement setup: a 3 s webhook timeout, 50 workers per replica. */
const TIMEOUT_MS = 3000;
/**
 * Samples per phase: the p99 of 200 is their third largest, so that one stall of a shared machine (a
 * process that waits for a core) does not decide it.
 */
const SAMPLES = 200;
/**
 * The bound is 2 × max(p99 alone, this): a delivery to a local receiver that takes a few milliseconds
 * alone is timed by clocks and timers of millisecond granularity, and on a 2-core machine the p99 of 200
 * samples (their second slowest) moves by 10 ms or more when one collection or one other process takes
 * a core at the wrong moment (a run measured 7 ms alone and 19 ms loaded with p50s of 3 ms both). The
 * defect this guards against is of another order: with no fair share, the healthy bot's deliveries wait
 * for slots the hanging bot holds for seconds.
 */
const TIMER_FLOOR_MS = 10;

/**
 * What is timed is the healthy bot's delivery: from the moment its job entered the queue (the time
 * Redis itself gave the job's `added` event) to the moment its own receiver, a process of its own,
 * saw the request. That is the dispatcher's share of the latency, the one a second bot can move. The
 * intake of the flood (bot-api, in this test's process, accepting 50 messages a second) is reported
 * beside it, end to end from sending the message, but is not what the isolation promises.
 *
 * bot-api runs in this test's process, on the same two cores as the dispatcher, Redis, PostgreSQL and
 * whatever else shares the machine; 50 messages a second through it cost CPU that slows every process
 * here, the dispatcher included, whoever receives them. A run "without the hanging bot" therefore
 * feeds the same messages to a third bot in polling mode: the same intake, Updates and machine load,
 * no webhook deliveries. Its samples are taken before the hanging bot floods and again after it left,
 * so that the load of the rest of the machine weighs on both sides alike. A quiet run, with no
 * messages fed at all, is printed beside it.
 */
describe("fault 5: one bot whose receiver hangs does not move another bot's latency (security defect 1)", () => {
  let stack: DeliveryStack;
  let own: ReceiverProcess;
  let hanging: HookBot;
  let healthy: HookBot;
  let polling: HookBot;
  const received = new Map<string, number>();
  let enqueued: string | undefined;
  let redis: IORedis;
  let events: string;
  /** The event stream read so far: its last entry id, and the Redis time of each job's `added` event. */
  let readUpTo = '0';
  const addedTimes = new Map<string, number>();

  beforeAll(async () => {
    stack = await startDeliveryStack({
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_WORKER_CONCURRENCY: '50',
      DELIVERY_RETRY_DELAYS_MS: '1000,1000,1000,1000',
    });
    own = await startReceiverProcess(testCertificate());
    own.onReceived((text, at) => received.set(text, at));
    hanging = await hookBot(stack, 'hanging', 'user-a', { max_connections: 100 });
    healthy = await hookBot(stack, 'healthy', 'user-b', { url: own.url });
    polling = await hookBot(stack, 'polling', 'user-c');
    await callBot(stack.ctx, polling.token, 'deleteWebhook').expect(200);
    // Accepts TLS and the request, never answers: every attempt holds its slot for the whole timeout.
    stack.answerFor('hanging', () => ({ status: 200, delayMs: 120_000 }));
    const queue = stack.ctx.app.get(DeliveryQueue);
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = (jobs) => {
      const job = jobs.find((candidate) => candidate.botId === healthy.botId);
      if (job) enqueued = deliverJobId(job.deliveryId, job.series);
      return enqueue(jobs);
    };
    redis = new IORedis(stack.ctx.config.REDIS_URL);
    events = `${queueKeyPrefix(stack.ctx.config.REDIS_KEY_PREFIX)}:${WEBHOOK_QUEUE}:events`;
  }, 60_000);
  afterAll(async () => {
    await redis?.quit();
    await own?.close();
    await stack?.close();
  });

  /**
   * Redis's own time (ms) of the `added` event of the job: the id of its entry in BullMQ's event stream.
   * The stream is read on from where the last call stopped, a few hundred entries per sample at most.
   */
  async function addedAt(jobId: string): Promise<number | undefined> {
    while (!addedTimes.has(jobId)) {
      const entries = (await redis.xrange(events, `(${readUpTo}`, '+', 'COUNT', 1000)) as Array<[string, string[]]>;
      if (entries.length === 0) break;
      for (const [id, fields] of entries) {
        const job = fields[fields.indexOf('jobId') + 1];
        if (fields[1] === 'added' && job) addedTimes.set(job, Number(id.split('-')[0]));
      }
      readUpTo = entries[entries.length - 1][0];
    }
    return addedTimes.get(jobId);
  }

  interface Sample {
    delivery: number;
    endToEnd: number;
  }

  /** One message at a time to the healthy bot, each timed until its receiver got the Update. */
  async function measure(label: string, samples = SAMPLES): Promise<Sample[]> {
    const measured: Sample[] = [];
    for (let i = 0; i < samples; i++) {
      const text = `${label}-${i}`;
      enqueued = undefined;
      const sent = Date.now();
      expect(await say(stack, healthy, text)).toBe(201);
      const deadline = sent + 4 * TIMEOUT_MS;
      while (!received.has(text) && Date.now() < deadline) await sleep(2);
      const at = received.get(text) ?? Date.now();
      const start = enqueued === undefined ? undefined : await addedAt(enqueued);
      if (start === undefined) throw new Error(`no added event for ${text} (job ${enqueued})`);
      measured.push({ delivery: at - start, endToEnd: at - sent });
    }
    return measured;
  }

  it("keeps the healthy bot's delivery p99 within 2x of a run without the hanging bot, while it floods a receiver that never answers", async () => {
    await measure('warmup', 20);
    const quiet = await measure('quiet', SAMPLES / 4);

    // The same stream of messages, to the polling bot (control phases) or to the hanging one.
    let target: HookBot | undefined = polling;
    let fed = 0;
    const feeder = (async () => {
      while (target) {
        const bot = target;
        // A few messages a second more than the hanging bot could ever drain: it always has jobs waiting.
        await Promise.all(Array.from({ length: 5 }, () => say(stack, bot, `flood-${fed++}`)));
        await sleep(100);
      }
    })();
    let alone: Sample[];
    let loaded: Sample[];
    let metrics: string;
    try {
      await sleep(1000);
      const aloneBefore = await measure('alone-before', SAMPLES / 2);
      target = hanging;
      // Long enough that, without a fair share, the hanging bot's jobs would fill all 50 slots.
      await sleep(TIMEOUT_MS);
      loaded = await measure('loaded');
      metrics = await (await fetch(`http://127.0.0.1:${stack.dispatcher.port}/metrics`)).text();
      target = polling;
      // The hanging bot leaves (its waiting deliveries are withdrawn) and its last POSTs time out.
      await callBot(stack.ctx, hanging.token, 'deleteWebhook').expect(200);
      await sleep(TIMEOUT_MS + 1000);
      alone = [...aloneBefore, ...(await measure('alone-after', SAMPLES / 2))];
    } finally {
      target = undefined;
      await feeder;
    }

    const of = (samples: Sample[], pick: keyof Sample) => samples.map((sample) => sample[pick]);
    const aloneP99 = percentile(of(alone, 'delivery'), 99);
    const loadedP99 = percentile(of(loaded, 'delivery'), 99);
    report('bot isolation', {
      quiet_p50_ms: percentile(of(quiet, 'delivery'), 50),
      quiet_p99_ms: percentile(of(quiet, 'delivery'), 99),
      alone_p50_ms: percentile(of(alone, 'delivery'), 50),
      alone_p99_ms: aloneP99,
      with_hanging_bot_p50_ms: percentile(of(loaded, 'delivery'), 50),
      with_hanging_bot_p99_ms: loadedP99,
      ratio: (loadedP99 / Math.max(aloneP99, TIMER_FLOOR_MS)).toFixed(2),
      end_to_end_alone_p99_ms: percentile(of(alone, 'endToEnd'), 99),
      end_to_end_with_hanging_bot_p99_ms: percentile(of(loaded, 'endToEnd'), 99),
      messages_fed: fed,
      deferred: counter(metrics, 'bot_webhook_jobs_deferred_total') ?? 'none',
    });
    expect(loadedP99).toBeLessThanOrEqual(2 * Math.max(aloneP99, TIMER_FLOOR_MS));
    // Though the bot allows 100 connections, once its POSTs are seen to hang it holds its fair share
    // (5 of 50) and borrows no idle slot; its backlog shows per bot.
    const held = gauge(metrics, 'bot_webhook_in_flight', hanging.botId);
    expect(held).toBeGreaterThanOrEqual(1);
    expect(held).toBeLessThanOrEqual(5);
    expect(gauge(metrics, 'bot_webhook_queue_depth', hanging.botId)).toBeGreaterThan(5);
    expect(counter(metrics, 'bot_webhook_jobs_deferred_total')).toBeGreaterThan(0);
    // Six phases of timed samples: on a busy machine this takes over a minute.
  }, 180_000);
});

function gauge(metrics: string, name: string, botId: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}{bot_id="${botId}"}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

function counter(metrics: string, name: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}
