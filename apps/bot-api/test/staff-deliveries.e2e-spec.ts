import { DELIVERY_ERROR_CLASSES } from '@app/bot-delivery';
import { describeEachBackend, quietPeriod } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotTestContext, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';
import {
  DeliveryWorld,
  readUntil,
  FAST_RETRIES,
  HookBot,
  hookBot,
  say,
  STAFF,
  statusesOf,
} from './staff-deliveries-world';

const API = '/api/v1/bots/admin/deliveries';
const allDead = (statuses: string[], n: number) => statuses.length === n && statuses.every((s) => s === 'dead_letter');

/** Platform staff's delivery operations (issue: SRE console), against a real dispatcher and receiver. */
describeEachBackend('staff delivery operations across all bots', (backend) => {
  let ctx: BotTestContext;
  let world: DeliveryWorld;
  let dispatcher: DispatcherProcess;
  let db: DataSource;
  let five: HookBot;
  let gone: HookBot;

  beforeAll(async () => {
    world = await DeliveryWorld.start();
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', REDRIVE_STEP_MS: '100', COORDINATION_BACKEND: backend });
    db = ctx.app.get(DataSource);
    dispatcher = await startDispatcher(ctx, { ...FAST_RETRIES, WEBHOOK_CA_FILE: world.receiver.caFile });
    five = await hookBot(ctx, world, 'five');
    gone = await hookBot(ctx, world, 'gone');
    world.answers.set('five', 500);
    world.answers.set('gone', 410);
    await say(ctx, five, 3);
    await say(ctx, gone, 2);
    await readUntil(
      () => statusesOf(db, five.botId),
      (s) => allDead(s, 3),
    );
    await readUntil(
      () => statusesOf(db, gone.botId),
      (s) => allDead(s, 2),
    );
  }, 60_000);
  afterAll(async () => {
    await dispatcher?.stop();
    await ctx?.close();
    await world?.receiver.close();
  });

  const staff = async (method: 'get' | 'post', path: string, body?: object) => {
    const call = request(ctx.app.getHttpServer())
      [method](`${API}${path}`)
      .set('Authorization', `Bearer ${await ctx.jwt(STAFF, 'SRE', ['platform_admin'])}`);
    return body ? call.send(body) : call;
  };
  const ok = async (method: 'get' | 'post', path: string, body?: object) => {
    const res = await staff(method, path, body);
    if (res.status !== 200 && res.status !== 202)
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const updateIds = async (query: string) =>
    ((await ok('get', `?${query}`)).items as Array<{ update_id: string }>).map((d) => d.update_id);

  it('answers 403 to a developer on every staff route, even the owner of the bot', async () => {
    const dead = await updateIds('status=dead_letter&pageSize=1');
    const developer = await ctx.jwt(five.owner);
    const routes: Array<['get' | 'post', string]> = [
      ['get', ''],
      ['get', '/session'],
      ['get', '/summary'],
      ['get', '/audit'],
      ['get', `/updates/${dead[0]}`],
      ['post', `/updates/${dead[0]}/redeliver`],
      ['post', '/redrives/dry-run'],
      ['post', '/redrives'],
      ['get', '/redrives'],
      ['get', '/redrives/00000000-0000-4000-8000-000000000000'],
      ['post', '/redrives/00000000-0000-4000-8000-000000000000/cancel'],
    ];
    for (const [method, path] of routes) {
      const res = await request(ctx.app.getHttpServer())
        [method](`${API}${path}`)
        .set('Authorization', `Bearer ${developer}`);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'FORBIDDEN' });
    }
    expect((await request(ctx.app.getHttpServer()).get(API)).status).toBe(401);
  });

  it("lists another owner's dead letters, filtered by bot, window and error class, with a stable cursor", async () => {
    expect(await updateIds('status=dead_letter')).toHaveLength(5);
    expect(await updateIds(`status=dead_letter&bot_id=${gone.botId}`)).toHaveLength(2);
    expect(await updateIds('status=dead_letter&error=http_410')).toHaveLength(2);
    expect(await updateIds('status=dead_letter&error=http_5xx')).toHaveLength(3);
    expect(await updateIds('status=dead_letter&error=timeout')).toHaveLength(0);
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(await updateIds(`status=dead_letter&since=${hourAgo}&until=${later}`)).toHaveLength(5);
    expect(await updateIds(`status=dead_letter&since=${later}`)).toHaveLength(0);
    expect(await updateIds(`status=dead_letter&until=${hourAgo}`)).toHaveLength(0);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ update_id: string; owner_id: string }>; next_cursor: string | null } = await ok(
        'get',
        `?status=dead_letter&pageSize=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.items.map((d) => d.update_id));
      cursor = page.next_cursor;
      // A dead letter written while paging sorts before the cursor: the pages still to come do not shift.
      if (seen.length === 2) {
        await db.query(
          `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, dead_letter_at)
           VALUES ($1, 9000, gen_random_uuid(), 'message', '{}'::jsonb, 'dead_letter', now())`,
          [gone.botId],
        );
      }
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    await db.query(`DELETE FROM webhook_deliveries WHERE bot_id = $1 AND update_seq = 9000`, [gone.botId]);
    expect(seen.sort()).toEqual((await updateIds('status=dead_letter')).sort());
  });

  it('refuses bad filters with 400 in the envelope', async () => {
    for (const query of [
      'status=lost',
      'error=dns',
      'bot_id=xyz',
      'since=yesterday',
      'pageSize=0',
      'cursor=bm9wZQ',
      'extra=1',
    ]) {
      const res = await staff('get', `?${query}`);
      expect({ query, status: res.status, success: res.body.success }).toEqual({ query, status: 400, success: false });
    }
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await staff('get', `?since=${later}&until=${new Date().toISOString()}`)).status).toBe(400);
    expect((await staff('post', '/redrives', { status: 'succeeded' })).status).toBe(400);
    expect((await staff('post', '/redrives/dry-run', { surprise: 1 })).status).toBe(400);
  });

  it('summarises per status and per bot, the bots with most dead letters first', async () => {
    const summary = await ok('get', '/summary');
    expect(summary.by_status.dead_letter).toBe(5);
    expect(summary.dead_letters_by_error).toEqual({ http_5xx: 3, http_410: 2 });
    expect(summary.bots.map((b: { bot_id: string }) => b.bot_id)).toEqual([five.botId, gone.botId]);
    expect(summary.bots[0]).toMatchObject({ owner_id: five.owner, dead_letter: 3 });
    const empty = await ok('get', `/summary?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(empty.by_status.dead_letter).toBe(0);
  });

  it('shows one delivery with its attempts (a 410 ends it at the first) and its Update', async () => {
    const [updateId] = await updateIds(`status=dead_letter&bot_id=${gone.botId}&pageSize=1`);
    const delivery = await ok('get', `/updates/${updateId}`);
    expect(delivery).toMatchObject({
      update_id: updateId,
      bot_id: gone.botId,
      status: 'dead_letter',
      error_class: 'http_410',
    });
    // 410 Gone is terminal: the dispatcher dead-letters at once instead of retrying.
    expect(delivery.attempt_log).toHaveLength(1);
    expect(delivery.attempt_log[0]).toMatchObject({
      status_code: 410,
      latency_ms: expect.any(Number),
      error: 'HTTP 410',
    });
    expect(delivery.update).toMatchObject({ update_id: updateId, type: 'message' });
    expect((await staff('get', '/updates/6a0b7c1e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await staff('get', '/updates/not-a-uuid')).status).toBe(404);
  });

  it('redelivers one, and then a bulk set whose dry-run count is the job total; each receiver gets each update once more', async () => {
    world.answers.set('five', 200);
    world.answers.set('gone', 200);
    const [single] = await updateIds(`status=dead_letter&bot_id=${five.botId}&pageSize=1`);
    expect(await ok('post', `/updates/${single}/redeliver`)).toMatchObject({ update_id: single, status: 'pending' });
    await readUntil(
      async () => world.receivedBy('five').get(single),
      (n) => n === 6,
    );

    const dry = await ok('post', '/redrives/dry-run', { all_bots: true });
    expect(dry).toMatchObject({ would_redeliver: 4 });
    expect(dry.per_bot).toEqual(
      expect.arrayContaining([
        { bot_id: five.botId, count: 2 },
        { bot_id: gone.botId, count: 2 },
      ]),
    );
    const job = await ok('post', '/redrives', { all_bots: true, rate_per_bot: 5 });
    expect(job).toMatchObject({ status: 'running', total: dry.would_redeliver, rate_per_bot: 5 });
    const finished = await readUntil(
      () => ok('get', `/redrives/${job.id}`),
      (progress) => progress.status === 'completed',
    );
    expect(finished).toMatchObject({ total: 4, done: 4, failed: 0, pending: 0 });
    expect(finished.per_bot).toEqual(
      expect.arrayContaining([
        { bot_id: five.botId, total: 2, done: 2, failed: 0, pending: 0 },
        { bot_id: gone.botId, total: 2, done: 2, failed: 0, pending: 0 },
      ]),
    );
    await readUntil(
      () => statusesOf(db, five.botId),
      (s) => s.every((status) => status === 'succeeded'),
    );
    await readUntil(
      () => statusesOf(db, gone.botId),
      (s) => s.every((status) => status === 'succeeded'),
    );
    await quietPeriod(300, 'no dead letter is delivered a second time');
    expect([...world.receivedBy('five').values()]).toEqual([6, 6, 6]);
    expect([...world.receivedBy('gone').values()]).toEqual([2, 2]);

    // The gauge the runbook says to watch falls to 0 for every class, instead of losing its series.
    const metrics = (await request(ctx.app.getHttpServer()).get('/metrics').expect(200)).text;
    const deadLetters = [...metrics.matchAll(/^bot_webhook_dead_letters\{error_class="(\w+)"\} (\d+)$/gm)];
    expect(Object.fromEntries(deadLetters.map(([, errorClass, count]) => [errorClass, Number(count)]))).toEqual(
      Object.fromEntries([...DELIVERY_ERROR_CLASSES, 'none'].map((errorClass) => [errorClass, 0])),
    );

    // The owner sees the staff redrive in the developer delivery list.
    const owners = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/my/${gone.botId}/deliveries`)
      .set('Authorization', `Bearer ${await ctx.jwt(gone.owner)}`)
      .expect(200);
    expect(owners.body.data.items.map((d: { status: string; series: number }) => [d.status, d.series])).toEqual([
      ['succeeded', 2],
      ['succeeded', 2],
    ]);
    expect((await ok('get', '/redrives')).items[0]).toMatchObject({ id: job.id, status: 'completed' });
  });

  it('cancels a running redrive: it stops where it was, and a second cancel is a conflict', async () => {
    await db.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts, dead_letter_at,
                                       last_error, last_status_code)
       SELECT $1, 1000 + g, gen_random_uuid(), 'message', '{}'::jsonb, 'dead_letter', 5, now(), 'HTTP 503', 503
         FROM generate_series(1, 40) g`,
      [five.botId],
    );
    const job = await ok('post', '/redrives', { bot_id: five.botId, error: 'http_5xx', rate_per_bot: 10 });
    expect(job.total).toBe(40);
    await readUntil(
      () => ok('get', `/redrives/${job.id}`),
      (p) => p.done > 0,
    );
    const cancelled = await ok('post', `/redrives/${job.id}/cancel`);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.pending).toBeGreaterThan(0);
    await quietPeriod(500, 'a cancelled redrive redelivers nothing more');
    expect((await ok('get', `/redrives/${job.id}`)).done).toBe(cancelled.done);
    const again = await staff('post', `/redrives/${job.id}/cancel`);
    expect(again.status).toBe(409);

    // A delivery the dispatcher is still working on needs no redelivery.
    const [open] = await db.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts, next_attempt_at)
       VALUES ($1, 5000, gen_random_uuid(), 'message', '{}'::jsonb, 'retrying', 2, now() + interval '1 hour')
       RETURNING update_id`,
      [five.botId],
    );
    expect((await staff('post', `/updates/${open.update_id}/redeliver`)).status).toBe(409);
  });

  it('writes every staff action to the audit log: who, what, filter and counts', async () => {
    const log = await ok('get', '/audit?pageSize=100');
    const actions = log.items.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual([
      'redrive.cancel',
      'redrive.start',
      'redrive.start',
      'redrive.dry_run',
      'delivery.redeliver',
    ]);
    expect(log.items.every((entry: { actor_id: string }) => entry.actor_id === STAFF)).toBe(true);
    expect(log.items[0]).toMatchObject({
      counts: { total: 40, done: expect.any(Number), pending: expect.any(Number) },
    });
    expect(log.items[0].counts.done + log.items[0].counts.pending + log.items[0].counts.failed).toBe(40);
    expect(log.items[3]).toMatchObject({ filter: { status: 'dead_letter' }, counts: { would_redeliver: 4 } });
    expect(log.items[2]).toMatchObject({ counts: { total: 4, rate_per_bot: 5 } });
    expect(log.items[4]).toMatchObject({ target: expect.any(String), counts: { redelivered: 1 } });
    const firstPage = await ok('get', '/audit?pageSize=2');
    const rest = await ok('get', `/audit?pageSize=10&cursor=${firstPage.next_cursor}`);
    expect(rest.items.map((entry: { action: string }) => entry.action)).toEqual(actions.slice(2));
  });

  it('says who is signed in: the staff account the console acts as', async () => {
    expect(await ok('get', '/session')).toEqual({ id: STAFF, name: 'SRE', roles: ['platform_admin'] });
  });

  it('exposes dead letters by error class, running redrive jobs and redeliveries on /metrics', async () => {
    const metrics = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/bot_redrive_jobs_running 0/);
    expect(metrics.text).toMatch(/bot_webhook_dead_letters\{error_class="http_5xx"\} \d+/);
    expect(metrics.text).toMatch(/bot_staff_redeliveries_total (\d+)/);
    expect(Number(/bot_staff_redeliveries_total (\d+)/.exec(metrics.text)?.[1])).toBeGreaterThanOrEqual(5);
  });
});
