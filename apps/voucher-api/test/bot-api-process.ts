import { signAccountJwt } from '@app/auth';
import {
  createEmptyDatabase,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testDataSource,
  testEnv,
  testRedisPrefix,
  deleteRedisKeys,
} from '@app/testing';
import { DataSource } from 'typeorm';

/** The shared secret a test gives both services, as Kubernetes gives both the same Secret key. */
export const TEST_INTERNAL_API_TOKEN = 'voucher-e2e-internal-token-0123456789';
/** bot-api's account secret in these tests, given explicitly rather than left to its public development default. */
const TEST_ACCOUNT_JWT_SECRET = 'voucher-e2e-bot-api-account-secret';

export interface BotApiProcess {
  url: string;
  /** Applies for a bot as `ownerId` through bot-api's developer route; returns its bot_id. */
  createBot(ownerId: string): Promise<string>;
  /** A stored file row as bot-api's upload flow leaves it; returns its file_id. */
  storeFile(file: { userId?: string; botId?: string; mimeType: string }): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The real bot-api, started from its main.ts as its own process on an empty database that it migrates
 * itself: voucher-api never imports bot-api's code, it only calls it over HTTP, as in production.
 */
export async function startBotApiProcess(): Promise<BotApiProcess> {
  const database: TestDatabase = await createEmptyDatabase('bot');
  const prefix = testRedisPrefix();
  let service: ServiceProcess | undefined;
  let db: DataSource | undefined;
  try {
    service = await startServiceProcess(
      'apps/bot-api/src/main.ts',
      testEnv(database.name, prefix, {
        LOG_LEVEL: process.env.TEST_DEBUG ? 'info' : 'warn',
        MIGRATIONS_RUN: 'true',
        INTERNAL_API_TOKEN: TEST_INTERNAL_API_TOKEN,
        ACCOUNT_JWT_SECRET: TEST_ACCOUNT_JWT_SECRET,
        REDRIVE_WORKER_ENABLED: 'false',
      }),
      60_000,
    );
    db = testDataSource(database.name);
    await db.initialize();
  } catch (error) {
    await service?.stop();
    await database.drop();
    throw error;
  }
  const url = `http://127.0.0.1:${service.port}`;
  const running = service;
  const connection = db;
  return {
    url,
    async createBot(ownerId) {
      const jwt = await signAccountJwt(TEST_ACCOUNT_JWT_SECRET, { sub: ownerId, name: ownerId, roles: [] });
      const res = await fetch(`${url}/api/v1/bots/my`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bot of ${ownerId}` }),
      });
      const body = (await res.json()) as { data?: { bot_id: string } };
      if (res.status !== 201 || !body.data) throw new Error(`bot-api refused the bot: ${res.status}`);
      return body.data.bot_id;
    },
    async storeFile(file) {
      if (file.userId) {
        await connection.query(`INSERT INTO users (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [
          file.userId,
        ]);
      }
      const rows: Array<{ id: string }> = await connection.query(
        `INSERT INTO files (bot_id, user_id, file_name, mime_type, file_size, width, height, storage_key)
         VALUES ($1, $2, 'upload', $3, 2048, 320, 200, $4) RETURNING id`,
        [file.botId ?? null, file.userId ?? null, file.mimeType, `test/${Math.random().toString(36).slice(2)}`],
      );
      return rows[0].id;
    },
    async stop() {
      await connection.destroy();
      await running.stop();
      await database.drop();
      await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
    },
  };
}
