import type { INestApplication } from '@nestjs/common';
import { signAccountJwt } from '@app/auth';
import { loadConfig } from '@app/platform';
import { createTestApp, createTestDatabase, deleteRedisKeys, testEnv, testRedisPrefix } from '@app/testing';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';

export interface VoucherTestContext {
  app: INestApplication;
  config: VoucherConfig;
  /** An account JWT signed with the test app's secret. */
  jwt(sub: string, name?: string, roles?: string[]): Promise<string>;
  close(): Promise<void>;
}

/** A voucher-api instance on its own freshly migrated database and Redis prefix. */
export async function startVoucherApp(extraEnv: Record<string, string> = {}): Promise<VoucherTestContext> {
  const database = await createTestDatabase('voucher', voucherMigrations);
  const prefix = testRedisPrefix();
  const config = loadConfig(VoucherConfig, testEnv(database.name, prefix, extraEnv));
  const app = await createTestApp(AppModule.forRoot(config));
  return {
    app,
    config,
    jwt: (sub, name = sub, roles = []) => signAccountJwt(config.ACCOUNT_JWT_SECRET, { sub, name, roles }),
    async close() {
      await app.close();
      await database.drop();
      await deleteRedisKeys(config.REDIS_URL, prefix);
    },
  };
}
