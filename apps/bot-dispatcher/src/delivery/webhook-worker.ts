import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import {
  DeliverJobData,
  deliveryBackoff,
  RetryLaterError,
  WEBHOOK_JOB_NAMES,
  WEBHOOK_JOBS,
  WEBHOOK_QUEUE,
} from '@app/bot-delivery';
import { workerWaitOptions } from '@app/coordination';
import type { Job } from 'bullmq';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryProcessor } from './delivery.processor';
import { createJobRouter } from './job-router';

/**
 * The webhook queue's consumer, on whichever backend the process runs. On shutdown @nestjs/bullmq
 * closes the worker, which stops taking jobs and waits for the ones in flight, so an attempt is
 * recorded rather than cut off (the dispatcher's SHUTDOWN_TIMEOUT_MS exceeds the POST timeout).
 *
 * The worker is created with `autorun: false` because its concurrency, lock timings and idle wait come
 * from the configuration, which a decorator cannot read: they are set here, before the first job is taken.
 */
@Processor(WEBHOOK_QUEUE, {
  autorun: false,
  settings: { backoffStrategy: deliveryBackoff },
  // A job whose worker died is taken over after the lock expires; allow that a few times.
  maxStalledCount: 3,
})
export class WebhookWorker extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookWorker.name);
  private readonly route: (job: Job, token?: string) => Promise<unknown>;

  constructor(
    private readonly config: DispatcherConfig,
    processor: DeliveryProcessor,
  ) {
    super();
    // Refuses to construct (and so the process to start) while a job name of the contract has no handler.
    this.route = createJobRouter(WEBHOOK_JOB_NAMES, {
      [WEBHOOK_JOBS.deliver]: (job: Job, token?: string) => processor.deliver(job as Job<DeliverJobData>, token),
    });
  }

  process(job: Job, token?: string): Promise<unknown> {
    return this.route(job, token);
  }

  onApplicationBootstrap(): void {
    const worker = this.worker;
    worker.concurrency = this.config.WEBHOOK_WORKER_CONCURRENCY;
    Object.assign(worker.opts, {
      lockDuration: this.config.WEBHOOK_JOB_LOCK_MS,
      stalledInterval: this.config.WEBHOOK_JOB_LOCK_MS,
      ...workerWaitOptions(this.config.coordinationBackend),
    });
    worker.on('error', (error: Error) => this.logger.warn(`webhook worker: ${error.message}`));
    worker.on('failed', (job, error) => {
      // A failed attempt is routine and already in the delivery log; anything else is not.
      if (!(error instanceof RetryLaterError)) this.logger.error(`job ${job?.id} failed: ${error.message}`);
    });
    void worker.run().catch((error: Error) => this.logger.error(`webhook worker stopped: ${error.message}`));
  }
}
