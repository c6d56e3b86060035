import { generateSecretToken, hashSecretToken } from '@app/auth';
import { loadConfig } from '@app/platform';
import {
  createTestDatabase,
  defaultTestBackend,
  TestDatabase,
  testChannelBuses,
  testDataSource,
  testRateLimitStores,
} from '@app/testing';
import { randomBytes } from 'node:crypto';
import { DataSource, DataSourceOptions } from 'typeorm';
import { BotTokenCache } from '../src/bots/auth/bot-token-cache';
import { BotTokenDirectory } from '../src/bots/auth/bot-token-directory';
import { BotTokenService } from '../src/bots/auth/bot-token.service';
import { TokenFailureLimiter } from '../src/bots/auth/token-failure-limiter';
import { BotsStore } from '../src/bots/bots.store';
import { Bot } from '../src/bots/entities/bot.entity';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

/** The bot-token checks on a database, a change channel and rate-limit counters of their own, without an app. */
export interface BotTokenUnit {
  dataSource: DataSource;
  config: BotConfig;
  store: BotsStore;
  cache: BotTokenCache;
  directory: BotTokenDirectory;
  failures: TokenFailureLimiter;
  service: BotTokenService;
  /** A bot with a fresh token; approved and enabled unless told otherwise. */
  insertBot(options?: { review?: string; status?: string; revoked?: boolean }): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

export async function startBotTokenUnit(env: Record<string, string> = {}): Promise<BotTokenUnit> {
  const database: TestDatabase = await createTestDatabase('bot', botMigrations);
  // The store reads the Bot entity; a Nest app would register it through the module's forFeature.
  const dataSource = new DataSource({ ...testDataSource(database.name).options, entities: [Bot] } as DataSourceOptions);
  await dataSource.initialize();
  const backend = defaultTestBackend();
  const buses = testChannelBuses(backend);
  const counters = testRateLimitStores(backend);
  const config = loadConfig(BotConfig, { NODE_ENV: 'test', ...env });
  const store = new BotsStore(dataSource);
  const cache = new BotTokenCache(await buses.replica(), config);
  await cache.start();
  const directory = new BotTokenDirectory(store);
  const failures = new TokenFailureLimiter(await counters.replica(), config);
  return {
    dataSource,
    config,
    store,
    cache,
    directory,
    failures,
    service: new BotTokenService(store, cache, directory, failures),
    async insertBot({ review = 'approved', status = 'enabled', revoked = false } = {}) {
      const id = randomBytes(12).toString('hex');
      const token = generateSecretToken('sbot_');
      await dataSource.query(
        `INSERT INTO bots (id, owner_id, name, review_status, status, scopes, token_hash, token_revoked_at)
         VALUES ($1, 'owner', 'Bot', $2, $3, ARRAY['messages:send'], $4, CASE WHEN $5 THEN now() END)`,
        [id, review, status, hashSecretToken(token), revoked],
      );
      return { id, token };
    },
    async close() {
      await cache.stop();
      await counters.close();
      await buses.close();
      await dataSource.destroy();
      await database.drop();
    },
  };
}
