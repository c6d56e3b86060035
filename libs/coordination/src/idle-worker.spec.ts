import type { CoordinationBackend } from '@app/platform';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  describeEachBackend,
  TestDatabase,
  testDatabaseSettings,
  testRedisPrefix,
  waitUntil,
} from '@app/testing';
import { Queue, Worker } from 'bullmq';
import type { CoordinationSettings } from './coordination-settings';
import { queueClientOptions, selectQueueBackend, workerWaitOptions } from './queue-connection';
import { prepareQueueSchema } from './queue-schema';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

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

  it('waits far longer than a job takes to arrive, yet picks up a job added while it waits at once', async () => {
    const processed: number[] = [];
    const worker = new Worker('idle-test', async () => void processed.push(Date.now()), {
      ...queueClientOptions(settings, 'worker', 'idle-worker'),
      ...workerWaitOptions(backend),
    });
    closers.push(() => worker.close());
    const queue = new Queue('idle-test', queueClientOptions(settings, 'producer', 'idle-producer'));
    closers.push(() => queue.close());
    let drained = 0;
    worker.on('drained', () => drained++);
    await Promise.all([worker.waitUntilReady(), queue.waitUntilReady()]);
    // The empty queue sends the worker into its wait; the add must end that wait, not the wait's timeout.
    await waitUntil(() => drained > 0, 'the worker to find the queue empty and wait', 15_000);
    const waitSeconds = worker.opts.drainDelay ?? 5;
    if (backend === 'postgres') expect(waitSeconds).toBeGreaterThanOrEqual(60);

    const added = Date.now();
    await queue.add('job', {});
    await waitUntil(() => processed.length === 1, 'the waiting worker to take the job', 10_000);
    expect(processed[0] - added).toBeLessThan((waitSeconds * 1000) / 2);
  });
});
