import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { PeriodicTask } from './periodic-work.module';

/** How a sweep names itself in its logs. */
export interface SweepLabels {
  /** What a failed pass is called: `<name> failed: <reason>`. */
  name: string;
  /** What a pass removes, e.g. `abandoned upload(s)`: a pass that removed some logs `purged <n> <removed>`. */
  removed?: string;
}

/**
 * A periodic task that removes what has outlived its retention, one pass at a time per replica: the
 * scheduled run and a direct call (an e2e test, an operator) made while a pass is running share that
 * pass instead of racing it for the same rows, and the app's shutdown waits for it, so it never meets
 * a closed pool. A failed pass is logged and answers 0; the next interval tries again. Extending it
 * injects nothing: the subclass keeps its own constructor and dependencies.
 */
export abstract class PeriodicSweep implements PeriodicTask, OnApplicationShutdown {
  private readonly logger = new Logger(this.constructor.name);
  private running?: Promise<number>;

  protected constructor(
    readonly everyMs: number,
    private readonly labels: SweepLabels,
  ) {}

  /** One pass of the sweep: answers how many it removed. */
  protected abstract pass(): Promise<number>;

  run(): Promise<number> {
    return this.sweep();
  }

  /** One pass, or the one already running; answers how many it removed. */
  sweep(): Promise<number> {
    this.running ??= this.pass()
      .then((removed) => {
        if (removed > 0 && this.labels.removed) this.logger.log(`purged ${removed} ${this.labels.removed}`);
        return removed;
      })
      .catch((error: Error) => {
        this.logger.warn(`${this.labels.name} failed: ${error.message}`);
        return 0;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }
}
