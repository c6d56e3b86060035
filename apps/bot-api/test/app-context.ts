import type { INestApplication } from '@nestjs/common';
import { signAccountJwt } from '@app/auth';
import { loadConfig } from '@app/platform';
import { createTestApp, createTestDatabase, deleteRedisKeys, testEnv, testRedisPrefix } from '@app/testing';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

export interface BotTestContext {
  app: INestApplication;
  config: BotConfig;
  /** An account JWT signed with the test app's secret. */
  jwt(sub: string, name?: string, roles?: string[]): Promise<string>;
  close(): Promise<void>;
}

/** A bot-api instance on its own freshly migrated database and Redis prefix. */
export async function startBotApp(extraEnv: Record<string, string> = {}): Promise<BotTestContext> {
  const database = await createTestDatabase('bot', botMigrations);
  const prefix = testRedisPrefix();
  const config = loadConfig(BotConfig, testEnv(database.name, prefix, extraEnv));
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
