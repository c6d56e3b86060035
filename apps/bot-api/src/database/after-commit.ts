import { Database, Transaction } from '@app/platform';

/** Where work can wait for a commit: a Database transaction, or the Database itself, whose statements on the pool have each committed already. */
export type CommitScope = Transaction | Database;

/**
 * Work that may happen only once the rows it announces are committed (a woken poller must find its
 * Update, a queued job its delivery): collected per transaction and handed to `run` on its commit,
 * dropped on rollback, and handed over at once on the Database.
 */
export class AfterCommit<T> {
  private readonly pending = new WeakMap<Transaction, T[]>();

  constructor(private readonly run: (items: T[]) => void) {}

  add(on: CommitScope, items: readonly T[]): void {
    if (on instanceof Database) {
      this.run([...items]);
      return;
    }
    this.addOn(on, items);
  }

  /** One commit hook per transaction, however many times work is added to it: `run` gets one batch. */
  private addOn(transaction: Transaction, items: readonly T[]): void {
    const waiting = this.pending.get(transaction);
    if (waiting) {
      waiting.push(...items);
      return;
    }
    const batch = [...items];
    this.pending.set(transaction, batch);
    transaction.afterCommit(() => this.run(batch));
  }
}
