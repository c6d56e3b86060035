import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@app/platform';
import {
  createTestApp,
  createTestDatabase,
  deleteRedisKeys,
  describeEachBackend,
  expectOneScheduledRunPerTask,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import { AppModule } from '../src/app.module';
import { DispatcherConfig } from '../src/config/dispatcher.config';
import { botMigrations } from './bot-schema';

describeEachBackend('bot-dispatcher periodic work on two replicas', (backend) => {
  let database: TestDatabase;
  let config: DispatcherConfig;
  const replicas: INestApplication[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    config = loadConfig(
      DispatcherConfig,
      testEnv(database.name, testRedisPrefix(), {
        COORDINATION_BACKEND: backend,
        DELIVERY_SWEEP_INTERVAL_MS: '600000',
      }),
    );
    for (let replica = 0; replica < 2; replica++) replicas.push(await createTestApp(AppModule.forRoot(config)));
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await database?.drop();
    await deleteRedisKeys(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  });

  it('schedules the outbox sweep and the delivery log purge once for the cluster, each run on one replica', async () => {
    await expectOneScheduledRunPerTask(replicas[0], 'bot-dispatcher-periodic', [
      'delivery-sweep',
      'delivery-log-purge',
    ]);
  });
});
