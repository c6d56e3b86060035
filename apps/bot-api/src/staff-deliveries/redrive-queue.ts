import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';

/** The queue that works off staff and automatic redrive jobs, one BullMQ job per running redrive job. */
export const REDRIVE_QUEUE = 'bot-api-redrives';
export const REDRIVE_STEP_JOB = 'redrive-steps';

export interface RedriveStepsData {
  redriveJobId: string;
}

/** One BullMQ job per redrive job while it runs: adding it twice is a no-op. */
function redriveJobOptions(redriveJobId: string): JobsOptions {
  return {
    jobId: `redrive-${redriveJobId}`,
    // The PostgreSQL row is the record; the finished BullMQ job is only a short trace.
    removeOnComplete: { count: 100 },
    removeOnFail: { count: 100 },
  };
}

export const registerRedriveQueue = () => BullModule.registerQueue({ name: REDRIVE_QUEUE });

/**
 * Hands running redrive jobs to the queue: after the commit that created them, and from the
 * periodic tick for any whose BullMQ job is gone (the backend lost it, or it ended while its row
 * still runs), as the webhook outbox does for deliveries.
 */
@Injectable()
export class RedriveQueue {
  private readonly logger = new Logger(RedriveQueue.name);

  constructor(@InjectQueue(REDRIVE_QUEUE) private readonly queue: Queue<RedriveStepsData>) {}

  /** Best effort: a redrive job left out now is queued by the next tick. */
  async enqueue(redriveJobIds: readonly string[]): Promise<void> {
    try {
      await this.ensureQueued(redriveJobIds);
    } catch (error) {
      this.logger.warn(`redrive job(s) left to the next tick: ${(error as Error).message}`);
    }
  }

  /** Queues each running redrive job that has no live BullMQ job; returns how many were queued. */
  async ensureQueued(redriveJobIds: readonly string[]): Promise<number> {
    let queued = 0;
    for (const redriveJobId of redriveJobIds) {
      const options = redriveJobOptions(redriveJobId);
      const existing = await this.queue.getJob(options.jobId!);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed') continue;
        await existing.remove();
      }
      await this.queue.add(REDRIVE_STEP_JOB, { redriveJobId }, options);
      queued++;
    }
    return queued;
  }
}
