import { MigrationInterface, QueryRunner } from 'typeorm';
import { createEmptyDatabase, quietPeriod, TestDatabase, testDatabaseVariables, testDataSource } from '@app/testing';
import { loadConfig, ServiceConfig } from './config';
import { migrationCli, migrationConfigSchema } from './database';

class CreateProbe1700000000000 implements MigrationInterface {
  name = 'CreateProbe1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE probe (id int PRIMARY KEY)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE probe');
  }
}

/** An index built CONCURRENTLY, which PostgreSQL refuses inside a transaction: up and down both run outside one. */
class IndexProbeConcurrently1700000000001 implements MigrationInterface {
  name = 'IndexProbeConcurrently1700000000001';
  transaction = false as const;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX CONCURRENTLY probe_id_desc ON probe (id DESC)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY probe_id_desc');
  }
}

describe('the migration CLI', () => {
  let database: TestDatabase;
  let config: ServiceConfig;
  const cli = (...args: string[]) => migrationCli(config, [CreateProbe1700000000000], ['node', 'migrate.js', ...args]);

  beforeAll(async () => {
    database = await createEmptyDatabase('platform');
    config = loadConfig(migrationConfigSchema('unused'), {
      NODE_ENV: 'production',
      ...testDatabaseVariables(),
      DB_NAME: database.name,
    });
  });

  afterAll(() => database.drop());

  it('loads in production from the database settings alone, with the service database as the default name', () => {
    const defaults = loadConfig(migrationConfigSchema('voucher'), { NODE_ENV: 'production', DB_HOST: 'db.internal' });
    expect(defaults).toMatchObject({ DB_NAME: 'voucher', DB_HOST: 'db.internal', dbAutoCreate: false });
  });

  it('refuses a stray argument instead of running another command (defect: "run revert" applied migrations and exited 0)', async () => {
    await expect(cli('run', 'revert')).rejects.toThrow(
      'run takes no argument, got "revert"; usage: migrate.js run | revert | show | wait [seconds]',
    );
    await expect(cli('revert', 'all')).rejects.toThrow('revert takes no argument, got "all"');
    await expect(cli('undo')).rejects.toThrow('unknown command "undo"');
    await expect(cli('wait', '1')).rejects.toThrow('migrations are pending');
  });

  it('refuses a wait that is not a whole number of seconds', async () => {
    await expect(cli('wait', 'soon')).rejects.toThrow('wait takes a whole number of seconds');
  });

  it('waits while migrations are pending, and gives up after its time', async () => {
    await expect(cli('wait', '1')).rejects.toThrow(`${database.name} is not migrated: migrations are pending`);
  });

  it('holds a wait until another process has applied the migrations, then lets it through', async () => {
    let waited = false;
    const waiting = cli('wait', '60').then(() => (waited = true));
    await quietPeriod(300, 'the wait holds while migrations are pending');
    expect(waited).toBe(false);
    await cli('run');
    await waiting;
    expect(waited).toBe(true);
    await expect(cli('wait', '1')).resolves.toBeUndefined();
  });

  describe('revert', () => {
    let other: TestDatabase;
    let otherConfig: ServiceConfig;
    const migrations = [CreateProbe1700000000000, IndexProbeConcurrently1700000000001];
    const run = (list: typeof migrations, command: string) =>
      migrationCli(otherConfig, list, ['node', 'migrate.js', command]);
    const applied = async () => {
      const probe = testDataSource(other.name);
      await probe.initialize();
      try {
        const rows: Array<{ name: string }> = await probe.query('SELECT name FROM migrations ORDER BY id');
        const indexes: Array<{ indexname: string }> = await probe.query(
          "SELECT indexname FROM pg_indexes WHERE tablename = 'probe' ORDER BY 1",
        );
        return { migrations: rows.map((r) => r.name), indexes: indexes.map((r) => r.indexname) };
      } finally {
        await probe.destroy();
      }
    };

    beforeAll(async () => {
      other = await createEmptyDatabase('platform');
      otherConfig = loadConfig(migrationConfigSchema('unused'), {
        NODE_ENV: 'production',
        ...testDatabaseVariables(),
        DB_NAME: other.name,
      });
    });

    afterAll(() => other.drop());

    it('says there is nothing to revert on a database without migrations, and fails', async () => {
      await expect(run(migrations, 'revert')).rejects.toThrow(
        `nothing to revert: no migration is applied to ${other.name}`,
      );
    });

    it('undoes exactly the last migration per call, outside a transaction for one that runs outside one', async () => {
      await run(migrations, 'run');
      expect(await applied()).toEqual({
        migrations: ['CreateProbe1700000000000', 'IndexProbeConcurrently1700000000001'],
        indexes: ['probe_id_desc', 'probe_pkey'],
      });
      const printed = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      try {
        await run(migrations, 'revert');
        expect(printed).toHaveBeenLastCalledWith(`reverted IndexProbeConcurrently1700000000001 of ${other.name}`);
      } finally {
        printed.mockRestore();
      }
      expect(await applied()).toEqual({ migrations: ['CreateProbe1700000000000'], indexes: ['probe_pkey'] });
    });

    it('refuses to revert a migration this image does not carry, and leaves it applied', async () => {
      await run(migrations, 'run');
      await expect(run([CreateProbe1700000000000], 'revert')).rejects.toThrow(
        `the last migration applied to ${other.name}, IndexProbeConcurrently1700000000001, is not in this image`,
      );
      expect((await applied()).migrations).toEqual(['CreateProbe1700000000000', 'IndexProbeConcurrently1700000000001']);
    });
  });
});
