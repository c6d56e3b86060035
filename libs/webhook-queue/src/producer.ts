import { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import {
  closeQueueClient,
  createQueueConnection,
  DeliverJobData,
  deliverJobOptions,
  WEBHOOK_DEFAULT_JOB_OPTIONS,
  WEBHOOK_JOBS,
  WEBHOOK_QUEUE,
  webhookQueuePrefix,
} from './queue';

export interface WebhookProducerOptions {
  redisUrl: string;
  redisKeyPrefix: string;
  /** Redis client name, to tell the connections apart. */
  connectionName: string;
  /** How warnings name this producer: `<label>: …` and `<label> connection: …`. */
  label: string;
  logger: { warn(message: string): void };
}

/** The producer side of the webhook queue: what bot-api (after commit) and the dispatcher's sweeper add jobs with. */
export interface WebhookProducer {
  readonly queue: Queue<DeliverJobData>;
  /** One `deliver` job per delivery and series; a job that already exists is left as it is. */
  deliver(jobs: readonly DeliverJobData[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A queue on a connection of its own that fails fast while Redis is down (see createQueueConnection):
 * whoever adds jobs can count on the sweeper to add them later from PostgreSQL.
 */
export function createWebhookProducer(options: WebhookProducerOptions): WebhookProducer {
  const connection: IORedis = createQueueConnection(options.redisUrl, 'producer', options.connectionName);
  connection.on('error', (error: Error) => options.logger.warn(`${options.label} connection: ${error.message}`));
  const queue = new Queue<DeliverJobData>(WEBHOOK_QUEUE, {
    connection,
    prefix: webhookQueuePrefix(options.redisKeyPrefix),
    defaultJobOptions: WEBHOOK_DEFAULT_JOB_OPTIONS,
  });
  queue.on('error', (error: Error) => options.logger.warn(`${options.label}: ${error.message}`));
  return {
    queue,
    async deliver(jobs) {
      if (jobs.length === 0) return;
      // Most writes carry one Update. BullMQ's addBulk wraps even one job in a MULTI pipeline, which
      // ioredis builds with a method per script BullMQ defines; add sends the one script call.
      if (jobs.length === 1) {
        await queue.add(WEBHOOK_JOBS.deliver, jobs[0], deliverJobOptions(jobs[0]));
        return;
      }
      await queue.addBulk(jobs.map((data) => ({ name: WEBHOOK_JOBS.deliver, data, opts: deliverJobOptions(data) })));
    },
    close: () => closeQueueClient(queue, connection),
  };
}
