import { INestApplication, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Pool, PoolClient } from 'pg';
import { createEmptyDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { loadConfig, ServiceConfig } from './config';
import { Database, poolConfig, Transaction } from './database-pool';
import { WarmUpGate, warmUpApp, WarmUpRehearsal } from './warm-up';

const INSERT_NOTE = { name: 'warm_up_test_insert_note', text: 'INSERT INTO notes (body) VALUES ($1)' };

describe('Database.rehearse', () => {
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createEmptyDatabase('platform');
    // One connection, so the statement after the rehearsal runs on the connection the rehearsal used.
    database = new Database(new Pool(poolConfig(testDatabaseSettings(test.name, 1))), 'named');
    await database.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
  });

  afterAll(async () => {
    await database?.end();
    await test?.drop();
  });

  it('rolls back what the work wrote, never runs its after-commit work, and returns its result', async () => {
    let committed = false;
    const result = await database.rehearse(async (tx) => {
      await tx.executor.query({ ...INSERT_NOTE, values: ['kept?'] });
      tx.afterCommit(() => (committed = true));
      return (await tx.executor.query('SELECT count(*)::int AS n FROM notes')).rows[0].n;
    });
    expect(result).toBe(1);
    expect((await database.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(0);
    expect(committed).toBe(false);
  });

  it('keeps the statements the work prepared on its connection, as the warm-up needs', async () => {
    await database.rehearse((tx) => tx.executor.query({ ...INSERT_NOTE, values: ['prepared'] }));
    const { rows } = await database.query('SELECT name FROM pg_prepared_statements');
    expect(rows.map((row) => row.name)).toContain(INSERT_NOTE.name);
  });

  it('rolls back and rethrows when the work throws, and the connection serves the next caller', async () => {
    const failing = database.rehearse(async (tx) => {
      await tx.executor.query({ ...INSERT_NOTE, values: ['failed'] });
      throw new Error('rehearsal failed');
    });
    await expect(failing).rejects.toThrow('rehearsal failed');
    expect((await database.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(0);
  });
});

describe('warmUpApp with a rehearsal', () => {
  let test: TestDatabase;
  let database: Database;
  let app: INestApplication;
  let gate: WarmUpGate;

  /** The app closes its Database on shutdown, so each test's app gets a pool of its own. */
  async function appWith(rehearsal: WarmUpRehearsal): Promise<INestApplication> {
    gate = new WarmUpGate({ rehearsal });
    database = new Database(new Pool(poolConfig({ ...testDatabaseSettings(test.name, 10), poolMin: 3 })), 'named');
    @Module({
      providers: [
        { provide: WarmUpGate, useValue: gate },
        { provide: Database, useValue: database },
      ],
    })
    class RehearsalModule {}
    const moduleRef = await Test.createTestingModule({ imports: [RehearsalModule] }).compile();
    const created = moduleRef.createNestApplication({ logger: false });
    await created.init();
    return created;
  }

  const config = (env: Record<string, string>) =>
    loadConfig(ServiceConfig, { DB_POOL_SIZE: '10', DB_POOL_MIN: '3', WARM_UP_REQUESTS: '0', ...env });

  beforeAll(async () => {
    test = await createEmptyDatabase('platform');
    const setUp = new Database(new Pool(poolConfig(testDatabaseSettings(test.name, 1))));
    await setUp.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    await setUp.end();
  });

  afterEach(() => app?.close());

  afterAll(() => test?.drop());

  it('runs WARM_UP_REHEARSALS rehearsals, one at a time on each open pool connection, and keeps none of their rows', async () => {
    const backends = new Set<number>();
    let allBusy: () => void = () => undefined;
    const allConnectionsBusy = new Promise<void>((resolve) => (allBusy = resolve));
    app = await appWith(async (_app, tx: Transaction) => {
      backends.add((tx.executor as PoolClient & { processID: number }).processID);
      if (backends.size === 3) allBusy();
      // Each rehearsal holds its connection until all three are in use at once: fewer at a time would
      // never get there, and the warm-up would run into its timeout.
      await allConnectionsBusy;
      await tx.executor.query({ ...INSERT_NOTE, values: ['rehearsed'] });
      tx.afterCommit(() => {
        throw new Error('after-commit work ran');
      });
    });
    const report = await warmUpApp(app, config({ WARM_UP_REHEARSALS: '12', WARM_UP_TIMEOUT_MS: '5000' }));
    expect(report).toMatchObject({ rehearsals: 12, poolConnections: 3, timedOut: false });
    expect(backends.size).toBe(3);
    expect((await database.query('SELECT count(*)::int AS n FROM notes')).rows[0].n).toBe(0);
    expect(gate.warming).toBe(false);
  });

  it('stops at the first failed rehearsal and reports ready anyway, with no rehearsal counted', async () => {
    let runs = 0;
    app = await appWith(async () => {
      runs++;
      throw new Error('no such chat');
    });
    const report = await warmUpApp(app, config({ WARM_UP_REHEARSALS: '50' }));
    expect(report?.rehearsals).toBe(0);
    expect(runs).toBeGreaterThan(0);
    expect(runs).toBeLessThanOrEqual(3);
    expect(gate.warming).toBe(false);
  });

  it('runs no rehearsal with WARM_UP_REHEARSALS=0', async () => {
    app = await appWith(async () => {
      throw new Error('rehearsed');
    });
    expect(await warmUpApp(app, config({ WARM_UP_REHEARSALS: '0' }))).toMatchObject({ rehearsals: 0 });
  });
});
