import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { addDeliverJobs, DeliverJobData, WEBHOOK_QUEUE } from '@app/bot-delivery';
import type { Queue } from 'bullmq';
import { AfterCommit, CommitScope } from '../database/after-commit';

/**
 * Producer side of the webhook queue. Jobs are added only after the transaction that wrote their
 * delivery rows committed, so the dispatcher always finds the row; a failed add (the queue's backend
 * unreachable) is only logged, because the dispatcher's sweeper enqueues every due delivery from PostgreSQL.
 */
@Injectable()
export class DeliveryQueue {
  private readonly logger = new Logger(DeliveryQueue.name);
  private readonly afterCommit: AfterCommit<DeliverJobData>;

  constructor(@InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliverJobData>) {
    this.afterCommit = new AfterCommit((jobs) => void this.enqueue(jobs));
    queue.on('error', (error: Error) => this.logger.warn(`webhook queue: ${error.message}`));
  }

  /** Adds the jobs once the transaction commits (at once on the Database). */
  enqueueAfterCommit(on: CommitScope, jobs: DeliverJobData[]): void {
    this.afterCommit.add(on, jobs);
  }

  /** Best effort: never throws. */
  async enqueue(jobs: DeliverJobData[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await addDeliverJobs(this.queue, jobs);
    } catch (error) {
      this.logger.warn(`${jobs.length} delivery job(s) left to the sweeper: ${(error as Error).message}`);
    }
  }
}
