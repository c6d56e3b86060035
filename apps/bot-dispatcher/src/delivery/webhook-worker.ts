import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  closeQueueClient,
  createQueueConnection,
  DeliverJobData,
  deliveryBackoff,
  RetryLaterError,
  WEBHOOK_JOB_NAMES,
  WEBHOOK_JOBS,
  WEBHOOK_QUEUE,
  webhookQueuePrefix,
} from '@app/webhook-queue';
import { Job, Worker } from 'bullmq';
import type IORedis from 'ioredis';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryProcessor } from './delivery.processor';
import { createJobRouter } from './job-router';

/**
 * The BullMQ consumer. On shutdown it stops taking jobs and waits for the ones in flight, so an
 * attempt is recorded rather than cut off (the dispatcher's SHUTDOWN_TIMEOUT_MS exceeds the POST timeout).
 */
@Injectable()
export class WebhookWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookWorker.name);
  private connection?: IORedis;
  private worker?: Worker;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly processor: DeliveryProcessor,
  ) {}

  onModuleInit(): void {
    const route = createJobRouter(WEBHOOK_JOB_NAMES, {
      [WEBHOOK_JOBS.deliver]: (job: Job, token?: string) => this.processor.deliver(job as Job<DeliverJobData>, token),
    });
    this.connection = createQueueConnection(this.config.REDIS_URL, 'worker', 'bot-dispatcher-worker');
    this.worker = new Worker(WEBHOOK_QUEUE, route, {
      connection: this.connection,
      prefix: webhookQueuePrefix(this.config.REDIS_KEY_PREFIX),
      concurrency: this.config.WEBHOOK_WORKER_CONCURRENCY,
      settings: { backoffStrategy: deliveryBackoff },
      // A job whose worker died is taken over after the lock expires; allow that a few times.
      maxStalledCount: 3,
      lockDuration: this.config.WEBHOOK_JOB_LOCK_MS,
      stalledInterval: this.config.WEBHOOK_JOB_LOCK_MS,
    });
    this.worker.on('error', (error: Error) => this.logger.warn(`webhook worker: ${error.message}`));
    this.worker.on('failed', (job, error) => {
      // A failed attempt is routine and already in the delivery log; anything else is not.
      if (!(error instanceof RetryLaterError)) this.logger.error(`job ${job?.id} failed: ${error.message}`);
    });
  }

  async onModuleDestroy(): Promise<void> {
    // Worker.close() waits for the jobs in flight: their attempts are recorded before the process exits.
    if (this.worker && this.connection) await closeQueueClient(this.worker, this.connection);
  }
}
