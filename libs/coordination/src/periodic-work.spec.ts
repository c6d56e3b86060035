import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, Module, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import type { Queue } from 'bullmq';
import type { CoordinationBackend } from '@app/platform';
import {
  createEmptyDatabase,
  describeEachBackend,
  TestDatabase,
  testDatabaseSettings,
  testRedisPrefix,
  quietPeriod,
  deleteRedisKeys,
  waitUntil,
} from '@app/testing';
import { CoordinationModule } from './coordination.module';
import type { CoordinationSettings } from './coordination-settings';
import { PeriodicTask, PeriodicWorkModule } from './periodic-work.module';
import { prepareQueueSchema } from './queue-schema';
import { GatedSweep } from '../test/gated-sweep';

const EVERY_MS = 250;
/** How often a replica re-asserts the schedulers with tasks this frequent (its lower bound). */
const REASSERT_MS = 5000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every run of the task, by any replica: when it ran and which replica ran it. */
const runs: Array<{ at: number; replica: string }> = [];

const REPLICA = Symbol('REPLICA');

@Injectable()
class CountingTask implements PeriodicTask {
  readonly everyMs = EVERY_MS;
  replica = '';

  async run(): Promise<void> {
    runs.push({ at: Date.now(), replica: this.replica });
  }
}

@Module({
  providers: [CountingTask, { provide: GatedSweep, useFactory: () => new GatedSweep() }],
  exports: [CountingTask, GatedSweep],
})
class TasksModule {}

describeEachBackend('periodic work', (backend: CoordinationBackend) => {
  let database: TestDatabase;
  let prefix: string;
  const replicas: TestingModule[] = [];
  const databaseSettings = () => testDatabaseSettings(database.name, 2);

  async function startReplica(name: string, tasks: Record<string, Type<PeriodicTask>>): Promise<TestingModule> {
    const settings: CoordinationSettings = {
      backend,
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      database: databaseSettings(),
      directDatabase: databaseSettings(),
      connectionName: `periodic-${name}`,
    };
    const replica = await Test.createTestingModule({
      imports: [
        CoordinationModule.forRoot(settings),
        TasksModule,
        PeriodicWorkModule.forRoot({ queue: 'test-periodic', tasks }),
      ],
    }).compile();
    replica.get(CountingTask).replica = name;
    await replica.init();
    replicas.push(replica);
    return replica;
  }

  beforeAll(async () => {
    database = await createEmptyDatabase('coordination');
    prefix = testRedisPrefix();
    if (backend === 'postgres') {
      await prepareQueueSchema(databaseSettings(), true);
    }
  });

  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    await database.drop();
    if (backend === 'redis') await deleteRedisKeys(REDIS_URL, prefix);
  });

  beforeEach(() => runs.splice(0));

  it('runs a task once per interval across two replicas, never once per replica', async () => {
    await startReplica('a', { count: CountingTask });
    await startReplica('b', { count: CountingTask });
    await waitUntil(() => runs.length >= 8, 'eight runs', 15_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(runs)}`);
    });
    const span = Math.max(...runs.map((run) => run.at)) - Math.min(...runs.map((run) => run.at));
    // One run per replica would double the runs of the span; once per cluster is one per interval,
    // plus the immediate first run (which may share its interval with the next) and timer jitter.
    expect(runs.length).toBeLessThanOrEqual(Math.floor(span / EVERY_MS) + 3);
  });

  it('removes the scheduler of a task that a new deploy no longer has', async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    await startReplica('c', {});
    const seen = runs.length;
    await quietPeriod(EVERY_MS * 3, 'a task the new deploy no longer has never runs again');
    expect(runs.length).toBe(seen);
  });

  it('re-asserts no scheduler that is in place, and puts back one the backend lost', async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    const replica = await startReplica('e', { count: CountingTask });
    const queue = replica.get<Queue>(getQueueToken('test-periodic'), { strict: false });
    await waitUntil(() => runs.length > 0, 'the first run', 15_000);
    // Every upsert wakes every waiting worker of the queue; one that changes nothing is pure cost.
    const upserts = jest.spyOn(queue, 'upsertJobScheduler');
    await quietPeriod(REASSERT_MS + 1000, 'a re-assert passes while every scheduler is in place');
    expect(upserts).not.toHaveBeenCalled();

    await queue.removeJobScheduler('count');
    const lost = runs.length;
    await waitUntil(() => runs.length > lost + 1, 'runs again after its scheduler was lost', REASSERT_MS * 3);
    expect(upserts).toHaveBeenCalled();
  }, 30_000);

  it('lets a direct call made during a scheduled run of a sweep share that run, not start a second pass', async () => {
    for (const replica of replicas.splice(0)) await replica.close();
    // The sweep's interval (a minute) is far beyond the test: only the first scheduled run is due.
    const replica = await startReplica('d', { sweep: GatedSweep });
    const sweep = replica.get(GatedSweep);
    await waitUntil(() => sweep.passes === 1, 'the first scheduled pass of the sweep', 15_000);
    const direct = sweep.sweep();
    expect(sweep.passes).toBe(1);
    sweep.open();
    await expect(direct).resolves.toBe(2);
    expect(sweep.passes).toBe(1);
  });
});
