import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import {
  addDeliverJobs,
  DeliverJobData,
  deliverJobFor,
  deliverJobId,
  DeliveryDomain,
  WEBHOOK_QUEUE,
} from '@app/bot-delivery';
import type { Queue } from 'bullmq';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryMetrics } from './delivery.metrics';

const SWEEP_BATCH = 500;

/**
 * PostgreSQL is the outbox, the queue only the transport: every few seconds (once per cluster, as
 * periodic work) the sweeper enqueues open deliveries that are overdue (bot-api crashed before
 * enqueueing, the queue's backend was down or lost data). The job id makes this a no-op for a job
 * that is still queued, delayed or running. It also gives a delivery to any Update of a webhook bot
 * that lacks one (see adoptOrphans).
 */
@Injectable()
export class DeliverySweeper implements PeriodicTask {
  private readonly logger = new Logger(DeliverySweeper.name);
  private running?: Promise<number>;
  readonly everyMs: number;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly delivery: DeliveryDomain,
    private readonly metrics: DeliveryMetrics,
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliverJobData>,
  ) {
    this.everyMs = config.DELIVERY_SWEEP_INTERVAL_MS;
  }

  run(): Promise<number> {
    return this.sweepOnce();
  }

  /** One pass (never two at once in this process); returns how many deliveries were enqueued. */
  sweepOnce(): Promise<number> {
    this.running ??= this.sweep()
      .catch((error: Error) => {
        this.logger.warn(`delivery sweep failed: ${error.message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<number> {
    const adopted = await this.delivery.adoptOrphans(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH);
    if (adopted.length > 0) {
      this.logger.warn(`${adopted.length} Updates of webhook bots had no delivery; delivering them now`);
    }
    const overdue = [
      ...adopted,
      ...(await this.delivery.overdue(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH)),
    ].map(deliverJobFor);
    let enqueued = 0;
    for (const data of overdue) {
      const existing = await this.queue.getJob(deliverJobId(data.deliveryId, data.series));
      if (existing) {
        const state = await existing.getState();
        // Still on its way: leave it. Finished while the row is open (e.g. skipped while the bot was disabled): replace it.
        if (state !== 'completed' && state !== 'failed') continue;
        await existing.remove();
      }
      await addDeliverJobs(this.queue, [data]);
      enqueued++;
    }
    if (enqueued > 0) {
      this.metrics.swept.inc(enqueued);
      this.logger.log(`re-enqueued ${enqueued} overdue deliveries`);
    }
    return enqueued;
  }
}
