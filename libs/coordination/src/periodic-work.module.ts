import { BullModule, InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { DynamicModule, Inject, Logger, Module, OnApplicationBootstrap, OnModuleDestroy, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, Queue } from 'bullmq';
import type { CoordinationSettings } from './coordination-settings';
import { COORDINATION } from './coordination.module';
import { workerWaitOptions } from './queue-connection';

/** Work the cluster runs every so often: a purge, a sweep. */
export interface PeriodicTask {
  /**
   * How often the cluster runs it. 0 or less: this replica neither schedules it nor removes its
   * scheduler (a replica configured not to run that kind of work).
   */
  readonly everyMs: number;
  /** One run. A failure is logged; the next interval runs it again. */
  run(): Promise<unknown>;
}

export interface PeriodicWorkOptions {
  /** The app's queue of periodic work, e.g. `bot-api-periodic`; apps sharing a Redis need distinct names. */
  queue: string;
  /** Scheduler id → the provider (from any module of the app) that does the work. Ids stay stable across deploys. */
  tasks: Record<string, Type<PeriodicTask>>;
}

/** How often each replica re-asserts the schedulers: ten intervals of the most frequent task, within these bounds. */
const REASSERT_MIN_MS = 5_000;
const REASSERT_MAX_MS = 60_000;

/** A finished run is kept only as a short trace. */
const KEEP_RUNS = { removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } };

/**
 * Runs each task once per cluster per interval, however many replicas there are: every replica
 * upserts the same BullMQ job schedulers (keyed by task name, so a redeploy changes nothing but the
 * interval) and runs the queue's worker, and each scheduled run is one job, taken by one worker.
 * Schedulers of names the app no longer has are removed, so a renamed task does not run twice.
 * Each replica re-asserts the schedulers now and then: a backend that lost its data (a Redis restarted
 * without persistence) would otherwise stop every periodic task, the outbox sweep included, until the
 * next deploy. It reads them and writes only when one is missing, differs or is no longer the app's:
 * every upsert wakes every waiting worker of the queue (on PostgreSQL a look of four statements each),
 * which, every minute on every replica, was most of what an idle app ran.
 */
@Module({})
export class PeriodicWorkModule {
  static forRoot(options: PeriodicWorkOptions): DynamicModule {
    @Processor(options.queue, { autorun: false, concurrency: 1 })
    class PeriodicWorker extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
      private readonly logger = new Logger(`PeriodicWork ${options.queue}`);
      private readonly tasks = new Map<string, PeriodicTask>();
      private reassert?: NodeJS.Timeout;

      constructor(
        private readonly moduleRef: ModuleRef,
        @InjectQueue(options.queue) private readonly queue: Queue,
        @Inject(COORDINATION) private readonly coordination: CoordinationSettings,
      ) {
        super();
      }

      async onApplicationBootstrap(): Promise<void> {
        for (const [name, type] of Object.entries(options.tasks)) {
          this.tasks.set(name, this.moduleRef.get(type, { strict: false }));
        }
        await this.schedule();
        const intervals = [...this.tasks.values()].map((task) => task.everyMs).filter((ms) => ms > 0);
        const reassertMs = Math.min(REASSERT_MAX_MS, Math.max(REASSERT_MIN_MS, 10 * Math.min(...intervals)));
        this.reassert = setInterval(
          () => void this.restore().catch((error: Error) => this.logger.warn(`schedulers: ${error.message}`)),
          reassertMs,
        );
        this.reassert.unref();
        Object.assign(this.worker.opts, workerWaitOptions(this.coordination.backend));
        this.worker.on('error', (error: Error) => this.logger.warn(`worker: ${error.message}`));
        void this.worker.run().catch((error: Error) => this.logger.error(`worker stopped: ${error.message}`));
      }

      onModuleDestroy(): void {
        clearInterval(this.reassert);
      }

      async process(job: Job): Promise<unknown> {
        const task = this.tasks.get(job.name);
        if (!task) throw new Error(`no periodic task named ${job.name}`);
        try {
          return await task.run();
        } catch (error) {
          this.logger.warn(`${job.name} failed, runs again at its next interval: ${(error as Error).message}`);
          throw error;
        }
      }

      /** Schedules again only if the backend's schedulers are not this replica's (see the class comment). */
      private async restore(): Promise<void> {
        const present = new Map<string, number>();
        for (const scheduler of await this.queue.getJobSchedulers()) {
          present.set(scheduler.id ?? scheduler.key, Number(scheduler.every));
        }
        const scheduled = [...this.tasks].filter(([, task]) => task.everyMs > 0);
        const inPlace =
          scheduled.every(([name, task]) => present.get(name) === task.everyMs) &&
          [...present.keys()].every((id) => this.tasks.has(id));
        if (!inPlace) await this.schedule();
      }

      private async schedule(): Promise<void> {
        for (const [name, task] of this.tasks) {
          if (task.everyMs <= 0) continue;
          await this.queue.upsertJobScheduler(name, { every: task.everyMs }, { name, data: {}, opts: KEEP_RUNS });
        }
        for (const scheduler of await this.queue.getJobSchedulers()) {
          const id = scheduler.id ?? scheduler.key;
          if (!this.tasks.has(id)) await this.queue.removeJobScheduler(id);
        }
      }
    }

    return {
      module: PeriodicWorkModule,
      imports: [BullModule.registerQueue({ name: options.queue })],
      providers: [PeriodicWorker],
    };
  }
}
