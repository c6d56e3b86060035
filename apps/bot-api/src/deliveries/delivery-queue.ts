import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createWebhookProducer, DeliverJobData, WebhookProducer } from '@app/webhook-queue';
import { DataSource, EntityManager } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { AfterCommit } from '../database/after-commit';

/**
 * Producer side of the webhook queue. Jobs are added only after the transaction that wrote their
 * delivery rows committed, so the dispatcher always finds the row; a failed add (Redis down) is only
 * logged, because the dispatcher's sweeper enqueues every due delivery from PostgreSQL.
 */
@Injectable()
export class DeliveryQueue implements OnModuleDestroy {
  private readonly logger = new Logger(DeliveryQueue.name);
  private readonly producer: WebhookProducer;
  private readonly afterCommit: AfterCommit<DeliverJobData>;

  constructor(@InjectDataSource() dataSource: DataSource, config: BotConfig) {
    this.producer = createWebhookProducer({
      redisUrl: config.REDIS_URL,
      redisKeyPrefix: config.REDIS_KEY_PREFIX,
      connectionName: 'bot-api-webhook-queue',
      label: 'webhook queue',
      logger: this.logger,
    });
    this.afterCommit = new AfterCommit(dataSource, (jobs) => void this.enqueue(jobs));
  }

  /** Adds the jobs once the manager's transaction commits (at once when there is none). */
  enqueueAfterCommit(manager: EntityManager, jobs: DeliverJobData[]): void {
    this.afterCommit.add(manager, jobs);
  }

  /** Best effort: never throws. */
  async enqueue(jobs: DeliverJobData[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await this.producer.deliver(jobs);
    } catch (error) {
      this.logger.warn(`${jobs.length} delivery job(s) left to the sweeper: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.producer.close();
  }
}
