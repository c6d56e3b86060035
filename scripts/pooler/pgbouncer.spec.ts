import { DataSource } from 'typeorm';
import {
  answeredByPooler,
  dataSourceOptions,
  DatabaseSettings,
  namedStatement,
  resolvePreparedStatements,
  runNamed,
  usePreparedStatements,
} from '@app/platform';
import { createEmptyDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { installedPgbouncer, Pgbouncer, startPgbouncer } from './pgbouncer';

const binary = installedPgbouncer();
// npm test needs nothing installed: without pgbouncer these cases say so and pass over; CI must not
// (.ci/run unpacks Debian's package and sets PGBOUNCER).
if (!binary && process.env.CI) throw new Error('pgbouncer not found (set PGBOUNCER or put it on the PATH)');
const withPgbouncer = binary ? describe : describe.skip;

const { host, port, user } = testDatabaseSettings('postgres');
const server = { host, port, user };
const countRow = namedStatement('test.pooler.count', 'SELECT count(*)::int AS n FROM generate_series(1, $1::int)');
const silent = { log: () => undefined };

withPgbouncer('behind PgBouncer in transaction mode', () => {
  let pgbouncer: Pgbouncer;
  let database: TestDatabase;
  const replicas: DataSource[] = [];

  const at = (port: number): DatabaseSettings => ({ ...testDatabaseSettings(database.name, 1), port });

  /** A replica of an app: a pool of one connection through the pooler, preparing statements as told. */
  async function replica(mode: 'named' | 'unnamed'): Promise<DataSource> {
    const dataSource = await new DataSource(dataSourceOptions(at(pgbouncer.port), [])).initialize();
    usePreparedStatements(dataSource, mode);
    replicas.push(dataSource);
    return dataSource;
  }

  beforeAll(async () => {
    pgbouncer = await startPgbouncer({ server, poolMode: 'transaction', binary });
    database = await createEmptyDatabase('pooler');
  });

  afterAll(async () => {
    for (const dataSource of replicas) await dataSource.destroy();
    await database?.drop();
    await pgbouncer?.stop();
  });

  it('is recognised by DB_PREPARED_STATEMENTS=auto, which then prepares unnamed, while the server itself gets named', async () => {
    expect(await answeredByPooler(at(pgbouncer.port))).toBe(true);
    expect(await answeredByPooler(at(server.port))).toBe(false);
    expect(await resolvePreparedStatements('auto', at(pgbouncer.port), silent)).toBe('unnamed');
    expect(await resolvePreparedStatements('auto', at(server.port), silent)).toBe('named');
    expect(await resolvePreparedStatements('named', at(pgbouncer.port), silent)).toBe('named');
  });

  it('breaks named statements of two replicas that share a server connection (the defect), and carries unnamed ones', async () => {
    const [first, second] = [await replica('named'), await replica('named')];
    await runNamed(first, countRow, [3]);
    // The pooler hands the second replica's transaction the server connection the first one prepared on.
    await expect(runNamed(second, countRow, [3])).rejects.toThrow(/prepared statement "test.pooler.count"/);

    const [third, fourth] = [await replica('unnamed'), await replica('unnamed')];
    const counts = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 ? third : fourth).transaction((manager) => runNamed<{ n: number }>(manager, countRow, [index])),
      ),
    );
    expect(counts.map((result) => result.rows[0].n)).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });
});
