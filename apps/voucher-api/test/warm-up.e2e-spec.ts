import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { isWarmUpRequest, listenAndWarmUp } from '@app/platform';
import {
  createTestDatabase,
  deleteRedisKeys,
  describeEachBackend,
  eventually,
  freePort,
  readinessInfo,
  ServiceTestContext,
  startServiceProcess,
  startServiceTestApp,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';

/** Holds the app's warm-up requests at the door until `open()`, counting those that arrive. */
function warmUpDoor() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const door = {
    arrived: 0,
    open,
    install(app: INestApplication) {
      app.use((req: Request, _res: Response, next: NextFunction) => {
        if (!isWarmUpRequest(req)) return next();
        door.arrived++;
        void opened.then(() => next());
      });
    },
  };
  return door;
}

async function startApp(env: Record<string, string>, door: ReturnType<typeof warmUpDoor>) {
  const ctx = await startServiceTestApp({
    service: 'voucher',
    migrations: voucherMigrations,
    schema: VoucherConfig,
    module: (config) => AppModule.forRoot(config),
    env,
    beforeInit: (app) => door.install(app),
  });
  ctx.config.PORT = await freePort();
  return ctx;
}

/**
 * Rows of every table of the service's database (rate-limit windows included), but BullMQ's: the
 * periodic work's scheduler books its next run there on its own clock, warm-up or not.
 */
async function rowCounts(app: INestApplication): Promise<Record<string, number>> {
  const dataSource = app.get(DataSource);
  const tables: Array<{ name: string }> = await dataSource.query(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'bullmq') ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    counts[name] = (await dataSource.query(`SELECT count(*)::int AS n FROM ${name}`))[0].n;
  }
  return counts;
}

/** The app's Redis keys, but BullMQ's (see rowCounts). */
async function redisKeys(config: VoucherConfig): Promise<string[]> {
  if (config.coordinationBackend !== 'redis') return [];
  const redis = new Redis(config.REDIS_URL);
  try {
    const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
    return keys.filter((key) => !key.startsWith(`${config.REDIS_KEY_PREFIX}bull:`)).sort();
  } finally {
    redis.disconnect();
  }
}

describeEachBackend('voucher-api warm-up', (backend) => {
  let ctx: ServiceTestContext<VoucherConfig>;
  const door = warmUpDoor();

  beforeAll(async () => {
    ctx = await startApp({ COORDINATION_BACKEND: backend, WARM_UP_REQUESTS: '12', DB_POOL_MIN: '3' }, door);
  });
  afterAll(() => ctx.close());

  it('answers readiness 503 until verify and redeem have been warmed, then 200, and writes nothing', async () => {
    const rowsBefore = await rowCounts(ctx.app);
    const keysBefore = await redisKeys(ctx.config);
    const warming = listenAndWarmUp(ctx.app, ctx.config);
    await eventually(() => expect(door.arrived).toBeGreaterThan(0));

    const server = ctx.app.getHttpServer();
    const held = await request(server).get('/health/ready').expect(503);
    expect(held.body.error.warm_up).toEqual({ status: 'down', message: 'warming up' });
    await request(server).get('/health/live').expect(200);

    door.open();
    const report = await warming;
    expect(report).toMatchObject({ requests: 12, statuses: { '401': 12 }, timedOut: false });
    expect(report!.poolConnections).toBeGreaterThanOrEqual(3);
    expect(door.arrived).toBe(12);

    const ready = await request(server).get('/health/ready').expect(200);
    expect(ready.body.info).toEqual(readinessInfo(backend));
    expect(await rowCounts(ctx.app)).toEqual(rowsBefore);
    expect(await redisKeys(ctx.config)).toEqual(keysBefore);
  });

  it('leaves the warm-up out of the request metrics', async () => {
    const { text } = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
    expect(text).not.toContain('/api/v1/open-platform/vouchers/verify');
    expect(text).not.toContain('/api/v1/open-platform/vouchers/redeem');
  });
});

describe('voucher-api with WARM_UP=false', () => {
  let ctx: ServiceTestContext<VoucherConfig>;
  const door = warmUpDoor();

  beforeAll(async () => {
    ctx = await startApp({ WARM_UP: 'false' }, door);
  });
  afterAll(() => ctx.close());

  it('is ready as soon as it listens and sends itself nothing', async () => {
    expect(await listenAndWarmUp(ctx.app, ctx.config)).toBeUndefined();
    await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
    expect(door.arrived).toBe(0);
  });
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
