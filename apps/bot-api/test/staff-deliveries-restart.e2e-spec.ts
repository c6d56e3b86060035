import request from 'supertest';
import { DataSource } from 'typeorm';
import { describeEachBackend, quietPeriod, ServiceProcess, startServiceProcess, testEnv } from '@app/testing';
import { BotTestContext, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';
import { DeliveryWorld, readUntil, FAST_RETRIES, hookBot, STAFF } from './staff-deliveries-world';

const DEAD_LETTERS = 30;

/**
 * A redrive job outlives the bot-api instance running it: killed mid-job (SIGKILL, no shutdown
 * hook), the queue lock of its BullMQ job runs out and the next instance finishes it, no dead letter twice.
 */
describeEachBackend('redrive job across a bot-api crash', (backend) => {
  let ctx: BotTestContext;
  let world: DeliveryWorld;
  let dispatcher: DispatcherProcess;
  let db: DataSource;
  const instances: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await DeliveryWorld.start();
    // This in-process app only seeds and reads; the bot-api processes below run the worker.
    ctx = await startBotApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      REDRIVE_WORKER_ENABLED: 'false',
      COORDINATION_BACKEND: backend,
    });
    db = ctx.app.get(DataSource);
    dispatcher = await startDispatcher(ctx, { ...FAST_RETRIES, WEBHOOK_CA_FILE: world.receiver.caFile });
  }, 60_000);
  afterAll(async () => {
    for (const instance of instances) await instance.stop('SIGKILL');
    await dispatcher?.stop();
    await ctx?.close();
    await world?.receiver.close();
  });

  const startInstance = async () => {
    const instance = await startServiceProcess(
      'apps/bot-api/src/main.ts',
      testEnv(ctx.config.DB_NAME, ctx.config.REDIS_KEY_PREFIX, {
        COORDINATION_BACKEND: ctx.config.coordinationBackend,
        LOG_LEVEL: process.env.TEST_DEBUG ? 'info' : 'warn',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_SECRET_KEY: ctx.config.WEBHOOK_SECRET_KEY,
        REDRIVE_STEP_MS: '200',
        REDRIVE_LEASE_MS: '2000',
      }),
    );
    instances.push(instance);
    return instance;
  };
  const progress = async (jobId: string) =>
    (
      await request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/admin/deliveries/redrives/${jobId}`)
        .set('Authorization', `Bearer ${await ctx.jwt(STAFF, 'SRE', ['platform_admin'])}`)
        .expect(200)
    ).body.data;

  it('is finished by the next instance after the first one is killed midway, each dead letter once', async () => {
    const bot = await hookBot(ctx, world, 'crash');
    await db.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts,
                                       dead_letter_at, last_error, last_status_code)
       SELECT $1, g, gen_random_uuid(), 'message', jsonb_build_object('n', g), 'dead_letter', 5, now(), 'HTTP 502', 502
         FROM generate_series(1, $2::int) g`,
      [bot.botId, DEAD_LETTERS],
    );

    const first = await startInstance();
    const started = await fetch(`http://127.0.0.1:${first.port}/api/v1/bots/admin/deliveries/redrives`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${await ctx.jwt(STAFF, 'SRE', ['platform_admin'])}`,
      },
      body: JSON.stringify({ bot_id: bot.botId, rate_per_bot: 5 }),
    });
    const job = ((await started.json()) as { data: { id: string; total: number } }).data;
    expect(job.total).toBe(DEAD_LETTERS);

    await readUntil(
      () => progress(job.id),
      (p) => p.done >= 5,
      20_000,
    );
    await first.stop('SIGKILL');
    const atCrash = await progress(job.id);
    expect(atCrash.status).toBe('running');
    expect(atCrash.pending).toBeGreaterThan(0);

    await startInstance();
    const finished = await readUntil(
      () => progress(job.id),
      (p) => p.status === 'completed',
      30_000,
    );
    expect(finished).toMatchObject({ total: DEAD_LETTERS, done: DEAD_LETTERS, failed: 0, pending: 0 });

    const rows: Array<{ status: string; series: number }> = await readUntil(
      () => db.query(`SELECT status, series FROM webhook_deliveries WHERE bot_id = $1`, [bot.botId]),
      (all: Array<{ status: string }>) => all.every((row) => row.status === 'succeeded'),
      20_000,
    );
    // One new series per dead letter: nothing was restarted twice by the job.
    expect(rows.every((row) => row.series === 2)).toBe(true);
    await quietPeriod(500, 'no dead letter is delivered a second time after the restart');
    const received = world.receivedBy('crash');
    expect(received.size).toBe(DEAD_LETTERS);
    expect([...received.values()].every((count) => count === 1)).toBe(true);
  }, 120_000);
});
