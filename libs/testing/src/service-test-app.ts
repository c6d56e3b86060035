import type { INestApplication } from '@nestjs/common';
import { AccountAuthConfig, signAccountJwt } from '@app/auth';
import { ApiDocsSpec, loadConfig, MigrationList } from '@app/platform';
import { ContractRecorder } from './contract';
import { createTestApp, deleteRedisKeys, testEnv, testRedisPrefix } from './test-app';
import { createTestDatabase } from './test-database';

export interface ServiceTestContext<C extends AccountAuthConfig> {
  app: INestApplication;
  config: C;
  /** An account JWT signed with the test app's secret. */
  jwt(sub: string, name?: string, roles?: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface ServiceTestAppOptions<C extends AccountAuthConfig> {
  /** Names the template and the per-file databases, e.g. `voucher`. */
  service: string;
  migrations: MigrationList;
  schema: new () => C;
  module: (config: C) => unknown;
  env?: Record<string, string>;
  /** Runs where main.ts's afterCreate does, before init (e.g. to mount the API docs). */
  beforeInit?: (app: INestApplication) => void;
  /** Checks every `/api/` response against the service's OpenAPI document; drift fails `close()`. */
  contract?: ApiDocsSpec;
}

/** A service instance on its own freshly migrated database and Redis prefix, removed again by close(). */
export async function startServiceTestApp<C extends AccountAuthConfig>(
  options: ServiceTestAppOptions<C>,
): Promise<ServiceTestContext<C>> {
  const database = await createTestDatabase(options.service, options.migrations);
  const prefix = testRedisPrefix();
  const config = loadConfig(options.schema, testEnv(database.name, prefix, options.env));
  const contract = options.contract && new ContractRecorder(options.contract);
  const app = await createTestApp(options.module(config), (created) => {
    contract?.install(created);
    options.beforeInit?.(created);
  });
  return {
    app,
    config,
    jwt: (sub, name = sub, roles = []) => signAccountJwt(config.ACCOUNT_JWT_SECRET, { sub, name, roles }),
    async close() {
      try {
        contract?.verify(app, options.service);
      } finally {
        await app.close();
        await database.drop();
        await deleteRedisKeys(config.REDIS_URL, prefix);
      }
    },
  };
}
