import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { deliverJobFor, DeliveryDomain } from '@app/bot-delivery';
import { workerWaitOptions } from '@app/coordination';
import { Database } from '@app/platform';
import { DelayedError, Job } from 'bullmq';
import { BotConfig } from '../config/bot.config';
import { DeliveryQueue } from '../deliveries/delivery-queue';
import { REDRIVE_QUEUE, RedriveStepsData } from './redrive-queue';
import { RedriveJobsStore } from './redrive-jobs.store';
import { StaffDeliveriesMetrics } from './staff-deliveries.metrics';

const NOT_REDRIVEN = 'no longer a dead letter, or its bot left webhook mode, when the job reached it';
/** Redrive jobs stepped at once by one replica. */
const CONCURRENT_REDRIVES = 4;

/**
 * Works off running redrive jobs. Each redrive job is one BullMQ job that takes one step per run
 * and then waits REDRIVE_STEP_MS in the queue's delayed set: held by one worker at a time through
 * BullMQ's lock, which a crashed replica stops renewing, so after REDRIVE_LEASE_MS another worker (or
 * the restarted one) takes the job over where it stopped, since every step's progress is committed
 * with the deliveries it restarted.
 *
 * Each step restarts at most rate_per_bot × step length of each bot's dead letters, lowest
 * update_seq first, so a receiver that just recovered gets its backlog in order and at that pace.
 */
@Processor(REDRIVE_QUEUE, { autorun: false, concurrency: CONCURRENT_REDRIVES, maxStalledCount: 1000 })
export class RedriveProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(RedriveProcessor.name);

  constructor(
    private readonly database: Database,
    private readonly jobs: RedriveJobsStore,
    private readonly delivery: DeliveryDomain,
    private readonly queue: DeliveryQueue,
    private readonly metrics: StaffDeliveriesMetrics,
    private readonly config: BotConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    if (!this.config.REDRIVE_WORKER_ENABLED) return;
    // From the configuration, which the decorator cannot read: set before the first job is taken.
    Object.assign(this.worker.opts, {
      lockDuration: this.config.REDRIVE_LEASE_MS,
      stalledInterval: Math.max(1000, Math.floor(this.config.REDRIVE_LEASE_MS / 2)),
      ...workerWaitOptions(this.config.coordinationBackend),
    });
    this.worker.on('error', (error: Error) => this.logger.warn(`redrive worker: ${error.message}`));
    void this.worker.run().catch((error: Error) => this.logger.error(`redrive worker stopped: ${error.message}`));
  }

  /** One step, then back to the delayed set until the next one; done once the redrive job ended. */
  async process(job: Job<RedriveStepsData>, token?: string): Promise<void> {
    let running: boolean;
    try {
      running = await this.step(job.data.redriveJobId);
    } catch (error) {
      this.logger.warn(`redrive step failed, retried next step: ${(error as Error).message}`);
      running = true;
    }
    if (!running) return;
    await job.moveToDelayed(Date.now() + this.config.REDRIVE_STEP_MS, token);
    throw new DelayedError();
  }

  /**
   * Restarts the job's next dead letters and records them done (or failed) in the same transaction.
   * Answers whether the redrive job still runs afterwards.
   */
  private async step(jobId: string): Promise<boolean> {
    const { kind, opened, running } = await this.database.transaction(async (tx) => {
      const job = await this.jobs.lockRunning(tx, jobId);
      if (!job) return { kind: 'staff', opened: [], running: false };
      const kind = job.kind;
      const perBot = Math.max(1, Math.round((job.rate_per_bot * this.config.REDRIVE_STEP_MS) / 1000));
      const next = await this.jobs.next(tx, jobId, perBot);
      const taken = await this.jobs.take(
        tx,
        jobId,
        next.map((item) => item.delivery_id),
      );
      const opened = await this.delivery.redrive(tx, taken, ['dead_letter'], kind === 'auto' ? 'auto' : 'staff');
      const done = new Set(opened.map((delivery) => delivery.id));
      await this.jobs.settle(
        tx,
        jobId,
        [...done],
        taken.filter((id) => !done.has(id)),
        NOT_REDRIVEN,
      );
      const completed = await this.jobs.completeIfDrained(tx, jobId);
      // Queued in update order per bot, as the step took them.
      const place = new Map(next.map((item, index) => [item.delivery_id, index]));
      opened.sort((a, b) => (place.get(a.id) ?? 0) - (place.get(b.id) ?? 0));
      return { kind, opened, running: !completed };
    });
    // Queued once committed: a job must never find its delivery still uncommitted.
    void this.queue.enqueue(opened.map(deliverJobFor));
    (kind === 'auto' ? this.metrics.autoRedelivered : this.metrics.redelivered).inc(opened.length);
    return running;
  }
}
