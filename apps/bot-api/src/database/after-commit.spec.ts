import type { DataSource, EntityManager, QueryRunner, TransactionCommitEvent } from 'typeorm';
import type { Pool, PoolClient } from 'pg';
import { Database, Transaction } from '@app/platform';
import { AfterCommit } from './after-commit';

function setup() {
  const dataSource = { subscribers: [] as unknown[] } as unknown as DataSource;
  const runs: string[][] = [];
  const hook = new AfterCommit<string>(dataSource, (items) => runs.push(items));
  const runner = { isTransactionActive: true };
  const inTransaction = { queryRunner: runner as QueryRunner } as EntityManager;
  const event = { queryRunner: runner as QueryRunner } as TransactionCommitEvent;
  return { dataSource, runs, hook, runner, inTransaction, event };
}

describe('AfterCommit', () => {
  it('subscribes to the data source it is given', () => {
    const { dataSource, hook } = setup();
    expect(dataSource.subscribers).toContain(hook);
  });

  it('runs at once for a manager outside a transaction', () => {
    const { runs, hook } = setup();
    hook.add({ queryRunner: undefined } as EntityManager, ['a']);
    expect(runs).toEqual([['a']]);
  });

  it('runs at once for the Database, whose statements on the pool have committed', () => {
    const { runs, hook } = setup();
    hook.add(new Database({} as Pool), ['a']);
    expect(runs).toEqual([['a']]);
  });

  it('holds what a transaction adds until its real commit, past released savepoints', () => {
    const { runs, hook, runner, inTransaction, event } = setup();
    hook.add(inTransaction, ['a']);
    hook.add(inTransaction, ['b', 'c']);
    hook.afterTransactionCommit(event);
    expect(runs).toEqual([]);
    runner.isTransactionActive = false;
    hook.afterTransactionCommit(event);
    hook.afterTransactionCommit(event);
    expect(runs).toEqual([['a', 'b', 'c']]);
  });

  it('drops what a rolled-back transaction added', () => {
    const { runs, hook, runner, inTransaction, event } = setup();
    hook.add(inTransaction, ['a']);
    runner.isTransactionActive = false;
    hook.afterTransactionRollback(event);
    hook.afterTransactionCommit(event);
    expect(runs).toEqual([]);
  });
});

describe('AfterCommit on a Database transaction', () => {
  const transactionOf = () => new Transaction({} as PoolClient, 'named');

  it('hands everything one transaction added to one run, after its commit only', () => {
    const { runs, hook } = setup();
    const tx = transactionOf();
    hook.add(tx, ['a']);
    hook.add(tx, ['b', 'c']);
    expect(runs).toEqual([]);
    tx.committed();
    expect(runs).toEqual([['a', 'b', 'c']]);
  });

  it('keeps two transactions apart', () => {
    const { runs, hook } = setup();
    const first = transactionOf();
    const second = transactionOf();
    hook.add(first, ['a']);
    hook.add(second, ['b']);
    second.committed();
    first.committed();
    expect(runs).toEqual([['b'], ['a']]);
  });
});
