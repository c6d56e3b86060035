import { namedStatement, runNamed, usePreparedStatements } from '@app/platform';
import { DataSource } from 'typeorm';
import { createEmptyDatabase, TestDatabase, testDataSource } from './test-database';

const insertCounter = namedStatement('test.counter.insert', 'INSERT INTO counters (id, n) VALUES ($1, $2) RETURNING n');
const bumpCounter = namedStatement('test.counter.bump', 'UPDATE counters SET n = n + 1 WHERE id = $1 RETURNING n');

describe('named statements', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createEmptyDatabase('platform');
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE counters (id text PRIMARY KEY, n int NOT NULL)');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('runs on the pool outside a transaction and returns rows and rowCount', async () => {
    const inserted = await runNamed<{ n: number }>(dataSource, insertCounter, ['pool', 1]);
    expect(inserted.rows).toEqual([{ n: 1 }]);
    const bumped = await runNamed<{ n: number }>(dataSource.manager, bumpCounter, ['pool']);
    expect(bumped.rowCount).toBe(1);
    expect(bumped.rows[0].n).toBe(2);
  });

  it('runs inside the transaction of the manager it is given, so a rollback undoes it', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await runNamed(manager, insertCounter, ['rolled-back', 1]);
        const seen = await manager.query(`SELECT n FROM counters WHERE id = 'rolled-back'`);
        expect(seen).toEqual([{ n: 1 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await dataSource.query(`SELECT n FROM counters WHERE id = 'rolled-back'`)).toEqual([]);
  });

  it('is prepared once per connection: Postgres lists it among the session prepared statements', async () => {
    await dataSource.transaction(async (manager) => {
      await runNamed(manager, insertCounter, ['prepared', 1]);
      const prepared = await manager.query(`SELECT name FROM pg_prepared_statements WHERE name = $1`, [
        insertCounter.name,
      ]);
      expect(prepared).toEqual([{ name: insertCounter.name }]);
    });
  });

  it('runs unnamed on a data source set to unnamed statements, so no connection keeps it prepared', async () => {
    const unnamed = testDataSource(database.name);
    await unnamed.initialize();
    try {
      usePreparedStatements(unnamed, 'unnamed');
      await unnamed.transaction(async (manager) => {
        const inserted = await runNamed<{ n: number }>(manager, insertCounter, ['unnamed', 5]);
        expect(inserted.rows).toEqual([{ n: 5 }]);
        expect(await manager.query(`SELECT name FROM pg_prepared_statements`)).toEqual([]);
      });
      const bumped = await runNamed<{ n: number }>(unnamed, bumpCounter, ['unnamed']);
      expect(bumped.rows).toEqual([{ n: 6 }]);
    } finally {
      await unnamed.destroy();
    }
  });

  it('refuses one name declared with two different texts', () => {
    expect(() => namedStatement('test.counter.bump', 'SELECT 1')).toThrow(/declared twice/);
    expect(namedStatement('test.counter.bump', bumpCounter.text)).toEqual(bumpCounter);
  });
});
