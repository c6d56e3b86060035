import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createWebhookProducer, deliverJobFor, deliverJobId, DeliveryStore, WebhookProducer } from '@app/webhook-queue';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryMetrics } from './delivery.metrics';

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
  private producer?: WebhookProducer;
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly store: DeliveryStore,
    private readonly metrics: DeliveryMetrics,
  ) {}

  onModuleInit(): void {
    this.producer = createWebhookProducer({
      redisUrl: this.config.REDIS_URL,
      redisKeyPrefix: this.config.REDIS_KEY_PREFIX,
      connectionName: 'bot-dispatcher-sweeper',
      label: 'sweeper queue',
      logger: this.logger,
    });
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
    const producer = this.producer;
    if (!producer) return 0;
    const adopted = await this.store.adoptOrphans(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH);
    if (adopted.length > 0) {
      this.logger.warn(`${adopted.length} Updates of webhook bots had no delivery; delivering them now`);
    }
    const overdue = [...adopted, ...(await this.store.overdue(this.config.DELIVERY_SWEEP_GRACE_MS, SWEEP_BATCH))].map(
      deliverJobFor,
    );
    let enqueued = 0;
    for (const data of overdue) {
      const existing = await producer.queue.getJob(deliverJobId(data.deliveryId, data.series));
      if (existing) {
        const state = await existing.getState();
        // Still on its way: leave it. Finished while the row is open (e.g. skipped while the bot was disabled): replace it.
        if (state !== 'completed' && state !== 'failed') continue;
        await existing.remove();
      }
      await producer.deliver([data]);
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
    await this.producer?.close();
  }
}
