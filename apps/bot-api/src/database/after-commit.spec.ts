import type { Pool, PoolClient } from 'pg';
import { Database, Transaction } from '@app/platform';
import { AfterCommit } from './after-commit';

function setup() {
  const runs: string[][] = [];
  const hook = new AfterCommit<string>((items) => runs.push(items));
  return { runs, hook };
}

const transactionOf = () => new Transaction({} as PoolClient, 'named');

describe('AfterCommit', () => {
  it('runs at once for the Database, whose statements on the pool have committed', () => {
    const { runs, hook } = setup();
    hook.add(new Database({} as Pool), ['a']);
    expect(runs).toEqual([['a']]);
  });

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
