import {
  createTestDatabase,
  spawnServiceMain,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import { voucherMigrations } from '../src/database/migrations';

const MAIN = 'apps/voucher-api/src/main.ts';

describe('voucher-api process', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('voucher', voucherMigrations);
  });
  afterAll(() => database.drop());

  it('refuses to start with exit code 78 and a message naming every bad variable', async () => {
    const service = spawnServiceMain(MAIN, { DB_PORT: 'five', NODE_ENV: 'staging', CREDENTIAL_KEY: 'short' });
    const exit = await service.exited;
    expect(exit.code).toBe(78);
    for (const variable of ['DB_PORT', 'NODE_ENV', 'CREDENTIAL_KEY']) expect(service.output()).toContain(variable);
  });

  it('serves readiness, then on SIGTERM shuts down gracefully within 10 s, never cut off by the shutdown timeout', async () => {
    const service = await startServiceProcess(MAIN, testEnv(database.name, testRedisPrefix(), { LOG_LEVEL: 'warn' }));
    const started = Date.now();
    const exit = await service.stop('SIGTERM');
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nest re-raises the signal once every module has closed: death by SIGTERM after a clean close, or code 0.
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    expect(service.output()).not.toMatch(/exceeded|ERROR/);
  });
});
