import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  closeQueueClient,
  createQueueConnection,
  DeliverJobData,
  deliverJobOptions,
  WEBHOOK_DEFAULT_JOB_OPTIONS,
  WEBHOOK_JOBS,
  WEBHOOK_QUEUE,
  webhookQueuePrefix,
} from '@app/webhook-queue';
import { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { BotConfig } from '../config/bot.config';

/**
 * Producer side of the webhook queue. Jobs are added only after the transaction that wrote their
 * delivery rows committed, so the dispatcher always finds the row; a failed add (Redis down) is only
 * logged, because the dispatcher's sweeper enqueues every due delivery from PostgreSQL.
 */
@Injectable()
export class DeliveryQueue implements EntitySubscriberInterface, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryQueue.name);
  private readonly connection: IORedis;
  private readonly queue: Queue<DeliverJobData>;
  private readonly pending = new WeakMap<QueryRunner, DeliverJobData[]>();

  constructor(@InjectDataSource() dataSource: DataSource, config: BotConfig) {
    this.connection = createQueueConnection(config.REDIS_URL, 'producer', 'bot-api-webhook-queue');
    this.connection.on('error', (error: Error) => this.logger.warn(`webhook queue connection: ${error.message}`));
    this.queue = new Queue<DeliverJobData>(WEBHOOK_QUEUE, {
      connection: this.connection,
      prefix: webhookQueuePrefix(config.REDIS_KEY_PREFIX),
      defaultJobOptions: WEBHOOK_DEFAULT_JOB_OPTIONS,
    });
    this.queue.on('error', (error: Error) => this.logger.warn(`webhook queue: ${error.message}`));
    dataSource.subscribers.push(this);
  }

  /** Adds the jobs once the manager's transaction commits (at once when there is none). */
  enqueueAfterCommit(manager: EntityManager, jobs: DeliverJobData[]): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      void this.enqueue(jobs);
      return;
    }
    const list = this.pending.get(runner) ?? [];
    list.push(...jobs);
    this.pending.set(runner, list);
  }

  /** Best effort: never throws. */
  async enqueue(jobs: DeliverJobData[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await this.queue.addBulk(
        jobs.map((data) => ({ name: WEBHOOK_JOBS.deliver, data, opts: deliverJobOptions(data) })),
      );
    } catch (error) {
      this.logger.warn(`${jobs.length} delivery job(s) left to the sweeper: ${(error as Error).message}`);
    }
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A released savepoint keeps the outer transaction open: wait for the real commit.
    if (event.queryRunner.isTransactionActive) return;
    const jobs = this.pending.get(event.queryRunner);
    if (!jobs) return;
    this.pending.delete(event.queryRunner);
    void this.enqueue(jobs);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }

  async onModuleDestroy(): Promise<void> {
    await closeQueueClient(this.queue, this.connection);
  }
}
