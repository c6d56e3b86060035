import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/**
 * Work that may happen only once the rows it announces are committed (a woken poller must find its
 * Update, a queued job its delivery): collected per transaction and handed to `run` on the real
 * commit, dropped on rollback, and handed over at once for a manager that has no transaction.
 */
export class AfterCommit<T> implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, T[]>();

  constructor(
    dataSource: DataSource,
    private readonly run: (items: T[]) => void,
  ) {
    dataSource.subscribers.push(this);
  }

  add(manager: EntityManager, items: readonly T[]): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      this.run([...items]);
      return;
    }
    const waiting = this.pending.get(runner) ?? [];
    waiting.push(...items);
    this.pending.set(runner, waiting);
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
