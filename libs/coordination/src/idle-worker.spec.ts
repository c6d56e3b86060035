import type { CoordinationBackend } from '@app/platform';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  describeEachBackend,
  quietPeriod,
  TestDatabase,
  testDatabaseSettings,
  testRedisPrefix,
  waitUntil,
} from '@app/testing';
import { Job, Queue, Worker } from 'bullmq';
import { Client } from 'pg';
import type { CoordinationSettings } from './coordination-settings';
import { queueClientOptions, selectQueueBackend, workerWaitOptions } from './queue-connection';
import { prepareQueueSchema } from './queue-schema';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** How late a delayed job or a retry may be taken: far below any wait of an idle worker. */
const ON_TIME_MS = 1000;
const DELAY_MS = 1500;

describeEachBackend('an idle worker', (backend: CoordinationBackend) => {
  let database: TestDatabase;
  let settings: CoordinationSettings;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    database = await createEmptyDatabase('idleworker');
    const db = testDatabaseSettings(database.name, 2);
    settings = {
      backend,
      redisUrl: REDIS_URL,
      redisKeyPrefix: testRedisPrefix(),
      database: db,
      directDatabase: db,
      connectionName: 'idle-worker',
    };
    selectQueueBackend(backend);
    if (backend === 'postgres') await prepareQueueSchema(db, true);
  });

  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    selectQueueBackend('redis');
    await database.drop();
    if (backend === 'redis') await deleteRedisKeys(REDIS_URL, settings.redisKeyPrefix);
  });

  /** A worker in its idle wait on an empty queue, and a producer of its own (another client, as another process). */
  async function waitingWorker(
    queueName: string,
    process: (job: Job) => Promise<void>,
    workerName = 'idle-worker',
  ): Promise<{ worker: Worker; queue: Queue }> {
    const worker = new Worker(queueName, process, {
      ...queueClientOptions(settings, 'worker', workerName),
      ...workerWaitOptions(backend),
    });
    closers.push(() => worker.close());
    const queue = new Queue(queueName, queueClientOptions(settings, 'producer', 'idle-producer'));
    closers.push(() => queue.close());
    let drained = 0;
    worker.on('drained', () => drained++);
    await Promise.all([worker.waitUntilReady(), queue.waitUntilReady()]);
    // The empty queue sends the worker into its wait; what follows must end or re-time that wait.
    await waitUntil(() => drained > 0, 'the worker to find the queue empty and wait', 15_000);
    if (backend === 'postgres') expect(worker.opts.drainDelay).toBeGreaterThanOrEqual(60);
    return { worker, queue };
  }

  it('waits far longer than a job takes to arrive, yet picks up a job added while it waits at once', async () => {
    const processed: number[] = [];
    const { worker, queue } = await waitingWorker('idle-test', async () => void processed.push(Date.now()));
    const waitSeconds = worker.opts.drainDelay ?? 5;

    const added = Date.now();
    await queue.add('job', {});
    await waitUntil(() => processed.length === 1, 'the waiting worker to take the job', 10_000);
    expect(processed[0] - added).toBeLessThan((waitSeconds * 1000) / 2);
  });

  it('takes a delayed job that another client adds while it waits at its due time, not at the end of its wait', async () => {
    const processed: number[] = [];
    const { queue } = await waitingWorker('idle-delayed', async () => void processed.push(Date.now()));

    const due = Date.now() + DELAY_MS;
    await queue.add('job', {}, { delay: DELAY_MS });
    await waitUntil(() => processed.length === 1, 'the waiting worker to take the delayed job', 15_000);
    expect(processed[0]).toBeGreaterThanOrEqual(due - 50);
    expect(processed[0] - due).toBeLessThan(ON_TIME_MS);
  });

  it("retries a failed job when its backoff ends, not at the end of the worker's wait", async () => {
    const attempts: number[] = [];
    const { queue } = await waitingWorker('idle-retry', async () => {
      attempts.push(Date.now());
      if (attempts.length === 1) throw new Error('the first attempt fails');
    });

    await queue.add('job', {}, { attempts: 2, backoff: { type: 'fixed', delay: DELAY_MS } });
    await waitUntil(() => attempts.length === 2, 'the retry of the failed job', 15_000);
    expect(attempts[1] - attempts[0]).toBeLessThan(DELAY_MS + ON_TIME_MS);
  });

  if (backend === 'postgres') {
    it('runs at most 3 statements in 6 s while idle, where a 5 s wait would run a look of four', async () => {
      const counted = 'idle-counted';
      let statements = 0;
      const original = Client.prototype.query;
      // Every statement of BullMQ's PostgreSQL backend goes through pg's Client; the worker's own
      // connections (its pool and its listening connection) carry its name.
      Client.prototype.query = function (this: Client, ...args: unknown[]) {
        const name = (this as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters
          ?.application_name;
        if (name === counted) statements++;
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof Client.prototype.query;
      try {
        await waitingWorker('idle-counted', async () => undefined, counted);
        statements = 0;
        await quietPeriod(6000, 'statements of an idle worker are counted over a window longer than a 5 s wait');
        expect(statements).toBeLessThanOrEqual(3);
      } finally {
        Client.prototype.query = original;
      }
    }, 30_000);
  }
});
