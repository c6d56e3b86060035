import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@app/platform';
import {
  createEmptyDatabase,
  createTestApp,
  readinessInfo,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { DispatcherConfig } from '../src/config/dispatcher.config';

describe('bot-dispatcher foundation', () => {
  let app: INestApplication;
  let database: TestDatabase;
  let config: DispatcherConfig;

  beforeAll(async () => {
    database = await createEmptyDatabase('dispatcher');
    config = loadConfig(DispatcherConfig, testEnv(database.name, testRedisPrefix()));
    app = await createTestApp(AppModule.forRoot(config));
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('answers readiness 200 naming the coordination mode, with what that mode depends on up', async () => {
    const res = await request(app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.info).toEqual(readinessInfo(config.coordinationBackend));
  });

  it('does not create or migrate the bot database on its own by default', () => {
    const config = loadConfig(DispatcherConfig, {});
    expect(config.dbAutoCreate).toBe(false);
    expect(config.MIGRATIONS_RUN).toBe(false);
    expect(config.PORT).toBe(3003);
  });
});
