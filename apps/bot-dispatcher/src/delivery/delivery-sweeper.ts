import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  closeQueueClient,
  createQueueConnection,
  DeliverJobData,
  deliverJobId,
  deliverJobOptions,
  WEBHOOK_DEFAULT_JOB_OPTIONS,
  WEBHOOK_JOBS,
  WEBHOOK_QUEUE,
  webhookQueuePrefix,
} from '@app/webhook-queue';
import { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryMetrics } from './delivery.metrics';
import { DeliveryStore } from './delivery.store';

const SWEEP_BATCH = 500;

/**
 * PostgreSQL is the outbox, Redis only the transport: every few seconds the sweeper enqueues open
 * deliveries that are overdue (bot-api crashed before enqueueing, Redis was down or lost data). The
 * job id makes this a no-op for a job that is still queued, delayed or running, on any replica.
 * It also gives a delivery to any Update of a webhook bot that lacks one (see adoptOrphans).
 */
@Injectable()
export class DeliverySweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(DeliverySweeper.name);
  private connection?: IORedis;
  private queue?: Queue<DeliverJobData>;
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly store: DeliveryStore,
    private readonly metrics: DeliveryMetrics,
  ) {}

  onModuleInit(): void {
    this.connection = createQueueConnection(this.config.REDIS_URL, 'producer', 'bot-dispatcher-sweeper');
    this.connection.on('error', (error: Error) => this.logger.warn(`sweeper connection: ${error.message}`));
    this.queue = new Queue<DeliverJobData>(WEBHOOK_QUEUE, {
      connection: this.connection,
      prefix: webhookQueuePrefix(this.config.REDIS_KEY_PREFIX),
      defaultJobOptions: WEBHOOK_DEFAULT_JOB_OPTIONS,
    });
    this.queue.on('error', (error: Error) => this.logger.warn(`sweeper queue: ${error.message}`));
    this.timer = setInterval(() => void this.sweepOnce(), this.config.DELIVERY_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** One pass (never two at once); returns how many deliveries were enqueued. */
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
    const queue = this.queue;
    if (!queue) return 0;
    const adopted = await this.store.adoptOrphans(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH);
    if (adopted.length > 0) {
      this.logger.warn(`${adopted.length} Updates of webhook bots had no delivery; delivering them now`);
    }
    const overdue = [
      ...adopted.map((row) => ({ id: row.id, series: 1, attempts: 0 })),
      ...(await this.store.overdue(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH)),
    ];
    let enqueued = 0;
    for (const row of overdue) {
      const data: DeliverJobData = { deliveryId: row.id, series: row.series, priorAttempts: row.attempts };
      const existing = await queue.getJob(deliverJobId(row.id, row.series));
      if (existing) {
        const state = await existing.getState();
        // Still on its way: leave it. Finished while the row is open (e.g. skipped while the bot was disabled): replace it.
        if (state !== 'completed' && state !== 'failed') continue;
        await existing.remove();
      }
      await queue.add(WEBHOOK_JOBS.deliver, data, deliverJobOptions(data));
      enqueued++;
    }
    if (enqueued > 0) {
      this.metrics.swept.inc(enqueued);
      this.logger.log(`re-enqueued ${enqueued} overdue deliveries`);
    }
    return enqueued;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    if (this.queue && this.connection) await closeQueueClient(this.queue, this.connection);
  }
}
