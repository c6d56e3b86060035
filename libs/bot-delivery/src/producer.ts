import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule } from '@nestjs/common';
import { COORDINATION, CoordinationSettings, queueClientOptions, QueueRole } from '@app/coordination';
import type { Queue } from 'bullmq';
import { DeliverJobData, deliverJobOptions, WEBHOOK_JOBS, WEBHOOK_QUEUE, webhookJobRetention } from './queue';

/**
 * The webhook queue as a BullMQ queue of the app, on the process's coordination backend. bot-api adds
 * jobs as a `producer`, which on Redis fails fast while Redis is down (an API request never waits on
 * it: the dispatcher's sweeper enqueues every open delivery from PostgreSQL later); the dispatcher
 * registers it as the `worker` its processor consumes.
 */
export function registerWebhookQueue(role: QueueRole): DynamicModule {
  return BullModule.registerQueueAsync({
    name: WEBHOOK_QUEUE,
    inject: [COORDINATION],
    useFactory: (settings: CoordinationSettings) => ({
      ...queueClientOptions(settings, role, `${settings.connectionName}-webhook-queue`),
      defaultJobOptions: webhookJobRetention(settings.backend),
    }),
  });
}

/** One `deliver` job per delivery and series; a job that already exists is left as it is. */
export async function addDeliverJobs(queue: Queue<DeliverJobData>, jobs: readonly DeliverJobData[]): Promise<void> {
  if (jobs.length === 0) return;
  // Most writes carry one Update. BullMQ's addBulk wraps even one job in a MULTI pipeline on Redis,
  // which ioredis builds with a method per script BullMQ defines; add sends the one script call.
  if (jobs.length === 1) {
    await queue.add(WEBHOOK_JOBS.deliver, jobs[0], deliverJobOptions(jobs[0]));
    return;
  }
  await queue.addBulk(jobs.map((data) => ({ name: WEBHOOK_JOBS.deliver, data, opts: deliverJobOptions(data) })));
}
