import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AttemptRecord, DeliveryDomain } from '@app/bot-delivery';
import { DispatcherConfig } from '../config/dispatcher.config';
import { BatchQueue } from './batch-queue';

/** Postgres chose this batch as a deadlock victim (another replica or bot-api locked the same rows). */
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_RETRIES = 3;

/**
 * Attempt outcomes, group-committed: the attempts that finish while a batch is being written share the
 * next statement, and at low load an outcome waits at most WEBHOOK_RECORD_BATCH_WINDOW_MS. Each job
 * awaits its own outcome, so BullMQ completes (or retries) a job only after its outcome is durable,
 * and a crash before that leaves the job to be run again. One batch at a time per replica, so batches
 * of one replica never wait on each other's row locks.
 */
@Injectable()
export class AttemptRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(AttemptRecorder.name);
  private readonly batches: BatchQueue<AttemptRecord, boolean>;

  constructor(
    private readonly config: DispatcherConfig,
    private readonly delivery: DeliveryDomain,
  ) {
    this.batches = new BatchQueue((records) => this.write(records), {
      maxBatch: config.WEBHOOK_RECORD_BATCH_MAX,
      windowMs: config.WEBHOOK_RECORD_BATCH_WINDOW_MS,
    });
  }

  /** Resolves once the attempt is committed: true when recorded, false when the delivery had moved on. */
  record(record: AttemptRecord): Promise<boolean> {
    return this.batches.push(record);
  }

  private async write(records: AttemptRecord[]): Promise<boolean[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.delivery.recordAttempts(records, this.config.WEBHOOK_GONE_PAUSE_AFTER);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === DEADLOCK_DETECTED && attempt <= DEADLOCK_RETRIES) continue;
        this.logger.warn(`recording ${records.length} attempt(s) failed: ${(error as Error).message}`);
        throw error;
      }
    }
  }

  /** Jobs still in flight keep recording after this; it only writes what waits without delay. */
  onModuleDestroy(): Promise<void> {
    return this.batches.drain();
  }
}
