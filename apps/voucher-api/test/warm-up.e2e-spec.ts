import {
  createTestDatabase,
  deleteRedisKeys,
  describeWarmUp,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';

describeWarmUp({
  name: 'voucher-api',
  service: 'voucher',
  migrations: voucherMigrations,
  schema: VoucherConfig,
  module: (config) => AppModule.forRoot(config),
  warmed: 'verify and redeem',
  warmedRoutes: ['/api/v1/open-platform/vouchers/verify', '/api/v1/open-platform/vouchers/redeem'],
});

describe('voucher-api process', () => {
  let database: TestDatabase;
  const prefix = testRedisPrefix();

  beforeAll(async () => {
    database = await createTestDatabase('voucher', voucherMigrations);
  });
  afterAll(async () => {
    await database.drop();
    await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  });

  it('logs one warm-up line before it reports ready, and neither a request line nor an error for its warm-up requests', async () => {
    const env = testEnv(database.name, prefix, { LOG_LEVEL: 'info', WARM_UP_REQUESTS: '30', DB_POOL_MIN: '2' });
    const service = await startServiceProcess('apps/voucher-api/src/main.ts', env);
    try {
      const lines = service.output().split('\n');
      expect(lines.filter((line) => line.includes('warm-up finished: 30 requests (401: 30)'))).toHaveLength(1);
      expect(lines.filter((line) => /request (completed|errored)/.test(line))).toEqual([]);
      expect(lines.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);
    } finally {
      await service.stop();
    }
  }, 60_000);
});
