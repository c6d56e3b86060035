import { sql } from 'kysely';
import { Pool } from 'pg';
import { createEmptyDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { Database, poolConfig } from './database-pool';
import { execute, executeFirst, preparedFor, queryBuilder } from './typed-sql';

/** The schema of the test's own table, as the generated schema files declare theirs. */
interface CounterDB {
  counters: { id: string; n: number };
}

const db = queryBuilder<CounterDB>();
const prepared = preparedFor(db);

const bump = prepared('typed_sql_test_bump', (db, p: { id: string; by: number }) =>
  db
    .updateTable('counters')
    .set({ n: sql<number>`n + ${p.by}::int` })
    .where('id', '=', p.id)
    .where('n', '>=', 0)
    .returning(['id', 'n']),
);

describe('typed statements on our own pool', () => {
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createEmptyDatabase('platform');
    database = new Database(new Pool(poolConfig(testDatabaseSettings(test.name, 2))), 'named');
    await database.query('CREATE TABLE counters (id text PRIMARY KEY, n int NOT NULL)');
    await database.query(`INSERT INTO counters VALUES ('a', 1), ('b', 10)`);
  });

  afterAll(async () => {
    await database?.end();
    await test?.drop();
  });

  it('compiles once with numbered markers and binds values by name, constants of the builder kept', () => {
    expect(bump.sql).toBe('update "counters" set "n" = n + $1::int where "id" = $2 and "n" >= $3 returning "id", "n"');
    expect(bump.values({ by: 2, id: 'a' })).toEqual([2, 'a', 0]);
  });

  it('refuses a run that lacks a parameter the statement uses', () => {
    expect(() => bump.values({ id: 'a' } as { id: string; by: number })).toThrow(/needs the parameter "by"/);
  });

  it('runs as a named prepared statement inside a transaction and returns typed rows', async () => {
    const row = await database.transaction(async (tx) => {
      const bumped = await bump.first(tx, { id: 'a', by: 2 });
      const { rows } = await tx.executor.query('SELECT name FROM pg_prepared_statements WHERE name = $1', [bump.name]);
      expect(rows).toEqual([{ name: bump.name }]);
      return bumped;
    });
    expect(row).toEqual({ id: 'a', n: 3 });
  });

  it('rolls the transaction back when its work throws, and rethrows', async () => {
    await expect(
      database.transaction(async (tx) => {
        await bump.run(tx, { id: 'b', by: 5 });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    const rows = (await execute(database, db.selectFrom('counters').select('n').where('id', '=', 'b'))).rows;
    expect(rows).toEqual([{ n: 10 }]);
  });

  it('runs after-commit work in the order it was added, once other connections see the committed rows', async () => {
    const nOf = async (id: string) =>
      (await executeFirst(database, db.selectFrom('counters').select('n').where('id', '=', id)))!.n;
    const before = await nOf('a');
    const reads: Array<Promise<{ step: string; n: number }>> = [];
    await database.transaction(async (tx) => {
      await bump.run(tx, { id: 'a', by: 100 });
      for (const step of ['first', 'second']) tx.afterCommit(() => reads.push(nOf('a').then((n) => ({ step, n }))));
      expect(reads).toEqual([]);
    });
    expect(await Promise.all(reads)).toEqual([
      { step: 'first', n: before + 100 },
      { step: 'second', n: before + 100 },
    ]);
  });

  it('drops after-commit work when the transaction rolls back', async () => {
    let ran = false;
    await expect(
      database.transaction(async (tx) => {
        tx.afterCommit(() => (ran = true));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(ran).toBe(false);
  });

  it('runs unnamed on a database set to unnamed statements, leaving nothing prepared', async () => {
    const unnamed = new Database(new Pool(poolConfig(testDatabaseSettings(test.name, 1))), 'unnamed');
    try {
      await unnamed.transaction(async (tx) => {
        expect(await bump.all(tx, { id: 'b', by: 1 })).toEqual([{ id: 'b', n: 11 }]);
        expect((await tx.executor.query('SELECT name FROM pg_prepared_statements')).rows).toEqual([]);
      });
    } finally {
      await unnamed.end();
    }
  });
});
