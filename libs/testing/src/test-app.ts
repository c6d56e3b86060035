import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { configureHttpApp, httpAdapter } from '@app/platform';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { defaultTestBackend } from './backends';

/**
 * Boots a module as the real HTTP app does (own body parsing, envelope, validation), without listening.
 * `beforeInit` gets the app where main.ts's afterCreate does (e.g. to mount the API docs).
 */
export async function createTestApp(
  module: unknown,
  beforeInit: (app: INestApplication) => void = () => undefined,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [module as never] }).compile();
  const app = moduleRef.createNestApplication(httpAdapter(), {
    bodyParser: false,
    logger: process.env.TEST_DEBUG ? undefined : false,
  });
  configureHttpApp(app);
  beforeInit(app);
  await app.init();
  return app;
}

/** A Redis key prefix private to one test file, so files can run in parallel against one Redis. */
export function testRedisPrefix(): string {
  return `test:${randomBytes(5).toString('hex')}:`;
}

/** Removes a test's keys; a no-op where this run has no Redis or the URL answers nothing (a test of the PostgreSQL-only mode). */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  if (process.env.TEST_REDIS_AVAILABLE === '0') return;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch {
    return;
  }
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Where the apps of this run reach PostgreSQL. With `TEST_DB_POOLER=host:port` (set by
 * `npm run test:pooler`) their pools go through that pooler and only what must reach the server itself
 * (migrations, LISTEN, the PostgreSQL-only mode's queues) goes to DB_HOST:DB_PORT; the helpers that
 * create and drop test databases always talk to the server.
 */
export function testDatabaseAddress(): Record<string, string> {
  const server = { DB_HOST: process.env.DB_HOST ?? '127.0.0.1', DB_PORT: process.env.DB_PORT ?? '5432' };
  const pooler = process.env.TEST_DB_POOLER;
  if (!pooler) return server;
  const match = /^(.+):(\d+)$/.exec(pooler);
  if (!match) throw new Error(`TEST_DB_POOLER must be host:port, not "${pooler}"`);
  return { DB_HOST: match[1], DB_PORT: match[2], DB_DIRECT_HOST: server.DB_HOST, DB_DIRECT_PORT: server.DB_PORT };
}

/** The database server and credentials of the run: what a config loaded from a hand-made env needs to connect. */
export function testDatabaseVariables(): Record<string, string> {
  return {
    ...testDatabaseAddress(),
    DB_USER: process.env.DB_USER ?? 'postgres',
    DB_PASSWORD: process.env.DB_PASSWORD ?? '',
  };
}

/**
 * The environment a test app boots with: quiet logs, its own database and Redis prefix, and the
 * coordination backend of the suite (`COORDINATION_BACKEND` in `extra`) or of the run.
 */
export function testEnv(database: string, redisPrefix: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ...testDatabaseVariables(),
    DB_NAME: database,
    DB_AUTO_CREATE: 'false',
    DB_POOL_SIZE: '10',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: redisPrefix,
    COORDINATION_BACKEND: defaultTestBackend(),
    ...extra,
  };
}
