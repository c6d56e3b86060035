import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DispatcherConfig } from '../config/dispatcher.config';
import { AttemptRecord, DeliveryStore } from './delivery.store';

/** Postgres chose this batch as a deadlock victim (another replica or bot-api locked the same rows). */
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_RETRIES = 3;

interface Waiting {
  record: AttemptRecord;
  resolve(recorded: boolean): void;
  reject(error: Error): void;
}

/**
 * Group commit of attempt outcomes. Jobs that finish while a batch is being written wait for the next
 * batch, so under load one statement records many attempts and at low load an outcome waits at most
 * WEBHOOK_RECORD_BATCH_WINDOW_MS. Each job awaits its own outcome: BullMQ completes (or retries) the
 * job only after the outcome is durable, and a crash before that leaves the job to be run again.
 * One batch at a time per replica, so batches of one replica never wait on each other's row locks.
 */
@Injectable()
export class AttemptRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(AttemptRecorder.name);
  private readonly maxBatch: number;
  private readonly windowMs: number;
  private waiting: Waiting[] = [];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;

  constructor(
    config: DispatcherConfig,
    private readonly store: DeliveryStore,
  ) {
    this.maxBatch = config.WEBHOOK_RECORD_BATCH_MAX;
    this.windowMs = config.WEBHOOK_RECORD_BATCH_WINDOW_MS;
  }

  /** Resolves once the attempt is committed: true when recorded, false when the delivery had moved on. */
  record(record: AttemptRecord): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ record, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.waiting.length === 0) return;
    if (this.waiting.length >= this.maxBatch) {
      this.writeNow();
      return;
    }
    this.timer ??= setTimeout(() => this.writeNow(), this.windowMs);
  }

  private writeNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.writing = this.write(batch).finally(() => {
      this.writing = undefined;
      // Whatever arrived meanwhile has waited long enough: write it at once.
      if (this.waiting.length > 0) this.writeNow();
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    const records = batch.map((entry) => entry.record);
    for (let attempt = 1; ; attempt++) {
      try {
        const recorded = await this.store.recordMany(records);
        batch.forEach((entry, index) => entry.resolve(recorded[index]));
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === DEADLOCK_DETECTED && attempt <= DEADLOCK_RETRIES) continue;
        this.logger.warn(`recording ${batch.length} attempt(s) failed: ${(error as Error).message}`);
        for (const entry of batch) entry.reject(error as Error);
        return;
      }
    }
  }

  /** Jobs still in flight keep recording after this; it only writes what waits without delay. */
  async onModuleDestroy(): Promise<void> {
    while (this.waiting.length > 0 || this.writing) {
      this.writeNow();
      await this.writing;
    }
  }
}
