import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@app/platform';
import {
  checkoutRelease,
  createTestApp,
  createTestDatabase,
  deleteRedisKeys,
  describeEachBackend,
  expectReleaseReported,
  readinessInfo,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { DispatcherConfig } from '../src/config/dispatcher.config';
import { botMigrations } from './bot-schema';

describeEachBackend('bot-dispatcher foundation', (backend) => {
  let app: INestApplication;
  let database: TestDatabase;
  let config: DispatcherConfig;

  beforeAll(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    config = loadConfig(DispatcherConfig, testEnv(database.name, testRedisPrefix(), { COORDINATION_BACKEND: backend }));
    app = await createTestApp(AppModule.forRoot(config));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    await deleteRedisKeys(config.REDIS_URL, config.REDIS_KEY_PREFIX);
  });

  it('answers readiness 200 naming the coordination mode, with what that mode depends on up', async () => {
    const res = await request(app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.info).toEqual(readinessInfo(backend));
  });

  it('reports the release it runs, version and commit, on liveness and in app_build_info', async () => {
    await expectReleaseReported(app.getHttpServer(), checkoutRelease('bot-dispatcher'));
  });

  it('does not create or migrate the bot database on its own by default', () => {
    const config = loadConfig(DispatcherConfig, {});
    expect(config.dbAutoCreate).toBe(false);
    expect(config.MIGRATIONS_RUN).toBe(false);
    expect(config.PORT).toBe(3003);
  });
});
