import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { textColumns } from './message-text';
import { MessagesStore } from './messages.store';

/** Messages read, detected and stored per round trip. */
const BATCH = 500;
/** How long one run goes on: a large backlog must not hold a replica's periodic worker for long. */
const RUN_BUDGET_MS = 5_000;
const NO_ID_YET = 2n ** 63n - 1n;

/**
 * Detects the entities of messages that have none stored: rows written before entities were detected
 * at write, and rows whose text a writer that does not detect (a replica of the previous release,
 * during a rollout or after a rollback) changed, which the database marks by dropping them. Newest
 * first, in batches, once per cluster every minute (periodic work). Until its batch comes, a message
 * reads with its formatting alone; once none is left, a run is one look into an empty index.
 */
@Injectable()
export class MessageDetectionBackfill implements PeriodicTask {
  private readonly logger = new Logger(MessageDetectionBackfill.name);
  readonly everyMs = 60_000;

  constructor(private readonly store: MessagesStore) {}

  /** One run; answers how many messages got their entities. */
  async run(): Promise<number> {
    const started = Date.now();
    let before = NO_ID_YET;
    let stored = 0;
    for (;;) {
      const pending = await this.store.detectionPending(before, BATCH);
      if (pending.length === 0) break;
      stored += await this.store.storeDetected(
        pending.map((message) => ({ id: message.id, ...textColumns(message.text, message.entities) })),
      );
      before = BigInt(pending[pending.length - 1].id);
      if (pending.length < BATCH || Date.now() - started >= RUN_BUDGET_MS) break;
    }
    if (stored > 0) this.logger.log(`detected the entities of ${stored} earlier message(s)`);
    return stored;
  }
}
