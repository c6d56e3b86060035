import { MigrationInterface, QueryRunner } from 'typeorm';
import { createEmptyDatabase, quietPeriod, TestDatabase } from '@app/testing';
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

describe('the migration CLI', () => {
  let database: TestDatabase;
  let config: ServiceConfig;
  const cli = (...args: string[]) => migrationCli(config, [CreateProbe1700000000000], ['node', 'migrate.js', ...args]);

  beforeAll(async () => {
    database = await createEmptyDatabase('platform');
    config = loadConfig(migrationConfigSchema('unused'), { NODE_ENV: 'production', DB_NAME: database.name });
  });

  afterAll(() => database.drop());

  it('loads in production from the database settings alone, with the service database as the default name', () => {
    const defaults = loadConfig(migrationConfigSchema('voucher'), { NODE_ENV: 'production', DB_HOST: 'db.internal' });
    expect(defaults).toMatchObject({ DB_NAME: 'voucher', DB_HOST: 'db.internal', dbAutoCreate: false });
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
});
