import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { AccountAuthConfig } from '@app/auth';
import { isWarmUpRequest, listenAndWarmUp, ServiceConfig, WarmUpGate } from '@app/platform';
import { describeEachBackend, readinessInfo } from './backends';
import { freePort } from './service-process';
import { ServiceTestAppOptions, ServiceTestContext, startServiceTestApp } from './service-test-app';
import { eventually } from './wait';

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

/**
 * Rows of every table of the service's database (rate-limit windows included), but BullMQ's: the
 * periodic work's scheduler books its next run there on its own clock, warm-up or not. A partitioned
 * table counts as one, its days' rows together: the partition keeper adds a day when the date turns,
 * and a run that crosses midnight must not read that as a change made by the warm-up.
 */
async function rowCounts(app: INestApplication): Promise<Record<string, number>> {
  const dataSource = app.get(DataSource);
  const tables: Array<{ name: string }> = await dataSource.query(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast', 'bullmq') ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    counts[name] = (await dataSource.query(`SELECT count(*)::int AS n FROM ${name}`))[0].n;
  }
  return counts;
}

/**
 * Where each sequence of the service's database stands, but BullMQ's (see rowCounts): a value drawn
 * and rolled back would leave a gap in message or Update ids.
 */
async function sequenceValues(app: INestApplication): Promise<Record<string, string | null>> {
  const rows: Array<{ name: string; last_value: string | null }> = await app.get(DataSource).query(
    `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value FROM pg_sequences
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'bullmq') ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, row.last_value]));
}

/** The app's Redis keys, but BullMQ's (see rowCounts). */
async function redisKeys(config: ServiceConfig): Promise<string[]> {
  if (config.coordinationBackend !== 'redis') return [];
  const redis = new Redis(config.REDIS_URL);
  try {
    const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
    return keys.filter((key) => !key.startsWith(`${config.REDIS_KEY_PREFIX}bull:`)).sort();
  } finally {
    redis.disconnect();
  }
}

/** Jobs of the warm-up plan's queues by state: a queued job would be a webhook sent. */
async function queuedJobs(app: INestApplication): Promise<Array<Record<string, number>>> {
  const tokens = app.get(WarmUpGate, { strict: false }).plan.queues ?? [];
  return Promise.all(
    tokens.map((token) =>
      app.get<{ getJobCounts(): Promise<Record<string, number>> }>(token as never, { strict: false }).getJobCounts(),
    ),
  );
}

export interface WarmUpSuiteOptions<C extends AccountAuthConfig> extends Omit<ServiceTestAppOptions<C>, 'env'> {
  /** The app's name in the suites' titles, e.g. `bot-api`. */
  name: string;
  /** What the warm-up warms, for the test's name, e.g. `verify and redeem`. */
  warmed: string;
  /** Route patterns of the warmed requests, which the request metrics must not show. */
  warmedRoutes: string[];
  /** What the plan's rehearsal runs past the guard to its answer, e.g. `a user message`; absent when it has none. */
  rehearsed?: string;
}

/**
 * The warm-up's contract for an HTTP app, in each coordination mode: readiness answers 503 while the
 * warm-up runs and 200 after, the warm-up runs the configured number of rehearsals to the end of their
 * success path and sends the configured number of requests, writes nothing, counts against no one,
 * queues no job and stays out of the metrics; switched off, the app is ready as soon as it listens.
 */
export function describeWarmUp<C extends AccountAuthConfig & ServiceConfig>(options: WarmUpSuiteOptions<C>): void {
  const start = async (env: Record<string, string>, door: ReturnType<typeof warmUpDoor>) => {
    const ctx = await startServiceTestApp({ ...options, env, beforeInit: (app) => door.install(app) });
    ctx.config.PORT = await freePort();
    return ctx;
  };

  describeEachBackend(`${options.name} warm-up`, (backend) => {
    let ctx: ServiceTestContext<C>;
    const door = warmUpDoor();

    beforeAll(async () => {
      ctx = await start(
        { COORDINATION_BACKEND: backend, WARM_UP_REQUESTS: '12', WARM_UP_REHEARSALS: '9', DB_POOL_MIN: '3' },
        door,
      );
    });
    afterAll(() => ctx.close());

    const rehearsed = options.rehearsed ? ` and ${options.rehearsed} rehearsed to its answer` : '';
    const warmed = `${options.warmed} have been warmed${rehearsed}`;
    it(`answers readiness 503 until ${warmed}, then 200, and changes nothing`, async () => {
      const rowsBefore = await rowCounts(ctx.app);
      const sequencesBefore = await sequenceValues(ctx.app);
      const keysBefore = await redisKeys(ctx.config);
      const jobsBefore = await queuedJobs(ctx.app);
      const warming = listenAndWarmUp(ctx.app, ctx.config);
      await eventually(() => expect(door.arrived).toBeGreaterThan(0));

      const server = ctx.app.getHttpServer();
      const held = await request(server).get('/health/ready').expect(503);
      expect(held.body.error.warm_up).toEqual({ status: 'down', message: 'warming up' });
      await request(server).get('/health/live').expect(200);

      door.open();
      const report = await warming;
      // A rehearsal counts only once it reached the end of its success path.
      const rehearsals = options.rehearsed ? 9 : 0;
      expect(report).toMatchObject({ rehearsals, requests: 12, statuses: { '401': 12 }, timedOut: false });
      expect(report!.poolConnections).toBeGreaterThanOrEqual(3);
      expect(door.arrived).toBe(12);

      const ready = await request(server).get('/health/ready').expect(200);
      expect(ready.body.info).toEqual(readinessInfo(backend));
      // Rate-limit windows among them: the made-up credentials counted against no caller.
      expect(await rowCounts(ctx.app)).toEqual(rowsBefore);
      expect(await sequenceValues(ctx.app)).toEqual(sequencesBefore);
      expect(await redisKeys(ctx.config)).toEqual(keysBefore);
      expect(await queuedJobs(ctx.app)).toEqual(jobsBefore);
    });

    it('leaves the warm-up out of the request metrics', async () => {
      const { text } = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
      for (const route of options.warmedRoutes) expect(text).not.toContain(route);
    });
  });

  describe(`${options.name} with WARM_UP=false`, () => {
    let ctx: ServiceTestContext<C>;
    const door = warmUpDoor();

    beforeAll(async () => {
      ctx = await start({ WARM_UP: 'false' }, door);
    });
    afterAll(() => ctx.close());

    it('is ready as soon as it listens and sends itself nothing', async () => {
      expect(await listenAndWarmUp(ctx.app, ctx.config)).toBeUndefined();
      await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
      expect(door.arrived).toBe(0);
    });
  });
}
