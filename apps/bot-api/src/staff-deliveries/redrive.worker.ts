import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { deliverJobFor, StaffDeliveryStore } from '@app/webhook-queue';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { DeliveryQueue } from '../deliveries/delivery-queue';
import { AutomaticRedrives } from './automatic-redrives';
import { RedriveJobKind, RedriveJobsStore } from './redrive-jobs.store';
import { StaffDeliveriesMetrics } from './staff-deliveries.metrics';

const NOT_REDRIVEN = 'no longer a dead letter, or its bot left webhook mode, when the job reached it';

/**
 * Works off running redrive jobs in the background. Every replica may run it: a job is held by one
 * worker at a time through a lease in its row, renewed on every step; the lease of a crashed
 * instance runs out and another worker (or the restarted one) takes the job over where it stopped,
 * since every step's progress is committed with the deliveries it restarted.
 *
 * Each step restarts at most rate_per_bot × step length of each bot's dead letters, lowest
 * update_seq first, so a receiver that just recovered gets its backlog in order and at that pace.
 * Each step first starts the automatic jobs of bots whose receiver recovered (self-healing dead
 * letters), which then run exactly like the jobs staff start.
 */
@Injectable()
export class RedriveWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RedriveWorker.name);
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: RedriveJobsStore,
    private readonly deliveries: StaffDeliveryStore,
    private readonly queue: DeliveryQueue,
    private readonly metrics: StaffDeliveriesMetrics,
    private readonly config: BotConfig,
    private readonly automatic: AutomaticRedrives,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.REDRIVE_WORKER_ENABLED) return;
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.config.REDRIVE_WORKER_ENABLED) {
      await this.jobs.release(this.owner).catch((error: Error) => this.logger.warn(`lease release: ${error.message}`));
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error: Error) => this.logger.warn(`redrive step failed, retried next step: ${error.message}`))
        .finally(() => this.schedule());
    }, this.config.REDRIVE_STEP_MS);
  }

  /** One step of every job this worker holds or can take over. */
  async tick(): Promise<void> {
    await this.automatic.startDue();
    const held = await this.jobs.claim(this.owner, this.config.REDRIVE_LEASE_MS);
    for (const job of held) {
      if (this.stopped) return;
      const perBot = Math.max(1, Math.round((job.rate_per_bot * this.config.REDRIVE_STEP_MS) / 1000));
      await this.step(job.id, job.kind, perBot);
    }
  }

  /** Restarts the job's next dead letters and records them done (or failed) in the same transaction. */
  private async step(jobId: string, kind: RedriveJobKind, perBot: number): Promise<void> {
    const restarted = await this.dataSource.transaction(async (manager) => {
      if (!(await this.jobs.lockRunning(manager, jobId, this.owner))) return 0;
      const next = await this.jobs.next(manager, jobId, perBot);
      const taken = await this.jobs.take(
        manager,
        jobId,
        next.map((item) => item.delivery_id),
      );
      const opened = await this.deliveries.restart(manager, taken, ['dead_letter'], kind === 'auto' ? 'auto' : 'staff');
      const done = new Set(opened.map((delivery) => delivery.id));
      await this.jobs.settle(
        manager,
        jobId,
        [...done],
        taken.filter((id) => !done.has(id)),
        NOT_REDRIVEN,
      );
      await this.jobs.completeIfDrained(manager, jobId);
      // Queued in update order per bot, as the step took them.
      const place = new Map(next.map((item, index) => [item.delivery_id, index]));
      opened.sort((a, b) => (place.get(a.id) ?? 0) - (place.get(b.id) ?? 0));
      this.queue.enqueueAfterCommit(manager, opened.map(deliverJobFor));
      return opened.length;
    });
    (kind === 'auto' ? this.metrics.autoRedelivered : this.metrics.redelivered).inc(restarted);
  }
}
