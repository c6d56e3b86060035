import type { DatabaseSettings } from '@app/platform';
import { createEmptyDatabase, TestDatabase } from '@app/testing';
import { prepareQueueSchema, QueueSchemaMissingError } from './queue-schema';

describe('prepareQueueSchema against real PostgreSQL', () => {
  let database: TestDatabase;
  let settings: DatabaseSettings;

  beforeAll(async () => {
    database = await createEmptyDatabase('queue_schema');
    settings = {
      host: process.env.DB_HOST ?? '127.0.0.1',
      port: Number(process.env.DB_PORT ?? 5432),
      user: process.env.DB_USER ?? 'postgres',
      password: process.env.DB_PASSWORD ?? '',
      database: database.name,
      poolSize: 1,
    };
  });
  afterAll(() => database.drop());

  it('refuses a database without the queue schema with one error naming the database and the migrations to run', async () => {
    const refusal = prepareQueueSchema(settings, false);
    await expect(refusal).rejects.toBeInstanceOf(QueueSchemaMissingError);
    await expect(refusal).rejects.toThrow(
      new RegExp(
        `schema "bullmq" in database ${database.name} is missing or out of date.*run the service's migrations`,
      ),
    );
  });

  it('creates the schema when the process runs migrations, after which the check passes', async () => {
    await prepareQueueSchema(settings, true);
    await expect(prepareQueueSchema(settings, false)).resolves.toBeUndefined();
  });
});
