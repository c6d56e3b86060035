import { generateSecretToken, hashSecretToken } from '@app/auth';
import { Database, loadConfig, poolConfig } from '@app/platform';
import {
  createTestDatabase,
  defaultTestBackend,
  TestDatabase,
  testChannelBuses,
  testDatabaseSettings,
  testDataSource,
  testRateLimitStores,
} from '@app/testing';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { BotTokenCache } from '../src/bots/auth/bot-token-cache';
import { BotTokenDirectory } from '../src/bots/auth/bot-token-directory';
import { BotTokenService } from '../src/bots/auth/bot-token.service';
import { TokenFailureLimiter } from '../src/bots/auth/token-failure-limiter';
import { BotsStore } from '../src/bots/bots.store';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

/** The bot-token checks on a database, a change channel and rate-limit counters of their own, without an app. */
export interface BotTokenUnit {
  dataSource: DataSource;
  /** The pool the stores run on. */
  database: Database;
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
  const dataSource = testDataSource(database.name);
  await dataSource.initialize();
  const pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 4))), 'named');
  const backend = defaultTestBackend();
  const buses = testChannelBuses(backend);
  const counters = testRateLimitStores(backend);
  const config = loadConfig(BotConfig, { NODE_ENV: 'test', ...env });
  const store = new BotsStore(pool);
  const cache = new BotTokenCache(await buses.replica(), config);
  await cache.start();
  const directory = new BotTokenDirectory(store);
  const failures = new TokenFailureLimiter(await counters.replica(), config);
  return {
    dataSource,
    database: pool,
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
      await pool.end();
      await database.drop();
    },
  };
}
