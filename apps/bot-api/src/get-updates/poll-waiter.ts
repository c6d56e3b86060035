import { randomUUID } from 'node:crypto';

/**
 * One running getUpdates call. A notification that arrives while the call is reading the database is
 * remembered (`signalled`), so an Update committed between the read and the wait is never slept through.
 */
export class PollWaiter {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  superseded = false;
  private signalled = false;
  private release?: () => void;

  constructor(readonly botId: string) {}

  /** Call before each read of the database. */
  arm(): void {
    this.signalled = false;
  }

  wake(): void {
    this.signalled = true;
    this.release?.();
  }

  /** Ended by a newer getUpdates of the same bot (here or on another instance). */
  supersede(): void {
    this.superseded = true;
    this.wake();
  }

  wait(ms: number): Promise<void> {
    if (this.signalled || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.release = undefined;
        resolve();
      }
      this.release = done;
    });
  }

  /** Whether a poll announced elsewhere is newer than this one (ties broken by id, so exactly one survives). */
  isOlderThan(startedAt: number, id: string): boolean {
    return startedAt > this.startedAt || (startedAt === this.startedAt && id > this.id);
  }
}
