import { Database, Transaction } from '@app/platform';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/**
 * Where work can wait for a commit: a Database transaction, or a TypeORM manager while callers move off
 * it; or the Database itself, whose statements on the pool have each committed already.
 */
export type CommitScope = EntityManager | Transaction | Database;

/**
 * Work that may happen only once the rows it announces are committed (a woken poller must find its
 * Update, a queued job its delivery): collected per transaction and handed to `run` on the real
 * commit, dropped on rollback, and handed over at once for a manager that has no transaction. Works on
 * a Database transaction (its own commit hook) and on a TypeORM manager (the data source's events).
 */
export class AfterCommit<T> implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, T[]>();
  private readonly pendingOn = new WeakMap<Transaction, T[]>();

  constructor(
    dataSource: DataSource,
    private readonly run: (items: T[]) => void,
  ) {
    dataSource.subscribers.push(this);
  }

  add(on: CommitScope, items: readonly T[]): void {
    if (on instanceof Database) {
      this.run([...items]);
      return;
    }
    if (on instanceof Transaction) {
      this.addOn(on, items);
      return;
    }
    const runner = on.queryRunner;
    if (!runner?.isTransactionActive) {
      this.run([...items]);
      return;
    }
    const waiting = this.pending.get(runner) ?? [];
    waiting.push(...items);
    this.pending.set(runner, waiting);
  }

  /** One commit hook per transaction, however many times work is added to it: `run` gets one batch. */
  private addOn(transaction: Transaction, items: readonly T[]): void {
    const waiting = this.pendingOn.get(transaction);
    if (waiting) {
      waiting.push(...items);
      return;
    }
    const batch = [...items];
    this.pendingOn.set(transaction, batch);
    transaction.afterCommit(() => this.run(batch));
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A released savepoint keeps the outer transaction open: wait for the real commit.
    if (event.queryRunner.isTransactionActive) return;
    const items = this.pending.get(event.queryRunner);
    if (!items) return;
    this.pending.delete(event.queryRunner);
    this.run(items);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }
}
