import { Injectable, Logger } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { DeliveryDomain } from '@app/bot-delivery';

/** Attempts filled per statement. */
const BATCH = 5_000;
/** How long one run goes on: a large backlog must not hold a replica's periodic worker for long. */
const RUN_BUDGET_MS = 5_000;

/**
 * Gives every attempt written by release 1.0.0 its delivery's created_at, the key the release after
 * this one partitions the attempts by (docs/operations.md, "Growth of the delivery tables"): its
 * migration refuses to convert while one is missing. In batches, once per cluster every minute
 * (periodic work); once none is left, a run is one look into an empty index.
 */
@Injectable()
export class AttemptDayBackfill implements PeriodicTask {
  private readonly logger = new Logger(AttemptDayBackfill.name);
  readonly everyMs = 60_000;

  constructor(private readonly delivery: DeliveryDomain) {}

  /** One run; answers how many attempts were filled. */
  async run(): Promise<number> {
    const started = Date.now();
    let filled = 0;
    for (;;) {
      const batch = await this.delivery.fillAttemptDeliveryDays(BATCH);
      filled += batch;
      if (batch < BATCH || Date.now() - started >= RUN_BUDGET_MS) break;
    }
    if (filled > 0) this.logger.log(`gave ${filled} earlier attempt(s) their delivery's created_at`);
    return filled;
  }
}
