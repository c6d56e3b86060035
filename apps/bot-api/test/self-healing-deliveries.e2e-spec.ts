import { describeEachBackend, quietPeriod } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotTestContext, callBot, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';
import { DeliveryWorld, readUntil, FAST_RETRIES, HookBot, hookBot, STAFF, statusesOf } from './staff-deliveries-world';

const MY = '/api/v1/bots/my';
const STAFF_API = '/api/v1/bots/admin/deliveries';
/** Redrive steps of 100 ms: an automatic job starts within one step of the recovery. */
const STEP_MS = 100;

interface Receipt {
  tag: string;
  updateId: string;
  text: string;
  answered: number;
}

/**
 * Self-healing dead letters (issue "Webhook delivery you can trust"), against a real dispatcher
 * process and an HTTPS receiver: a bot with auto_redeliver_dead_letters gets its dead letters again,
 * once each, in update order, as soon as its receiver answers 2xx again, without anyone redelivering.
 */
describeEachBackend('self-healing dead letters', (backend) => {
  let ctx: BotTestContext;
  let world: DeliveryWorld;
  let dispatcher: DispatcherProcess;
  let db: DataSource;
  const receipts: Receipt[] = [];
  /** Tags whose receiver is down (500 to everything); texts the receiver always refuses (a poison Update). */
  const down = new Set<string>();
  const poison = new Set<string>();

  beforeAll(async () => {
    world = await DeliveryWorld.start();
    world.receiver.answer((req) => {
      const tag = new URL(req.path, 'https://x').searchParams.get('bot') ?? '';
      const update = JSON.parse(req.rawBody.toString('utf8')) as { message?: { text?: string } };
      const text = update.message?.text ?? '';
      const answered = down.has(tag) || poison.has(text) ? 500 : 200;
      receipts.push({ tag, updateId: req.headers['x-service-update-id'] as string, text, answered });
      return answered;
    });
    ctx = await startBotApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      REDRIVE_STEP_MS: String(STEP_MS),
      // The tick that turns a recovery into a job, as often as a step in both modes.
      REDRIVE_TICK_MS: String(STEP_MS),
      COORDINATION_BACKEND: backend,
    });
    db = ctx.app.get(DataSource);
    dispatcher = await startDispatcher(ctx, { ...FAST_RETRIES, WEBHOOK_CA_FILE: world.receiver.caFile });
  }, 60_000);
  afterAll(async () => {
    await dispatcher?.stop();
    await ctx?.close();
    await world?.receiver.close();
  });

  const server = () => ctx.app.getHttpServer();
  const asOwner = async (bot: HookBot, owner = bot.owner) => `Bearer ${await ctx.jwt(owner)}`;
  const asStaff = async () => `Bearer ${await ctx.jwt(STAFF, 'SRE', ['platform_admin'])}`;

  async function sayText(bot: HookBot, text: string): Promise<string> {
    const res = await request(server())
      .post(`/api/v1/bots/client/chats/${bot.chatId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt('enduser')}`)
      .send({ text })
      .expect(201);
    return res.body.data.message_id as string;
  }

  async function setSwitch(bot: HookBot, on: boolean): Promise<void> {
    const res = await request(server())
      .patch(`${MY}/${bot.botId}`)
      .set('Authorization', await asOwner(bot))
      .send({ auto_redeliver_dead_letters: on });
    expect(res.status).toBe(200);
    expect(res.body.data.auto_redeliver_dead_letters).toBe(on);
  }

  /** The bot's deliveries in update order: update_id, text and status. */
  async function deliveriesOf(bot: HookBot): Promise<Array<{ update_id: string; text: string; status: string }>> {
    return db.query(
      `SELECT update_id, payload->'message'->>'text' AS text, status FROM webhook_deliveries
        WHERE bot_id = $1 ORDER BY update_seq`,
      [bot.botId],
    );
  }

  /** Sends `texts` while the bot's receiver is down and waits until every one is a dead letter. */
  async function deadLetters(bot: HookBot, texts: string[]): Promise<void> {
    down.add(bot.tag);
    for (const text of texts) await sayText(bot, text);
    await readUntil(
      () => statusesOf(db, bot.botId),
      (statuses) => statuses.length >= texts.length && statuses.every((s) => s === 'dead_letter'),
    );
  }

  const receivedBy = (tag: string, from = 0) => receipts.slice(from).filter((r) => r.tag === tag);
  const detail = async (bot: HookBot, updateId: string) =>
    (
      await request(server())
        .get(`${MY}/${bot.botId}/deliveries/${updateId}`)
        .set('Authorization', await asOwner(bot))
        .expect(200)
    ).body.data;
  /** Ten redrive steps and then some: long enough for a job that should not start to have started. */
  const settle = (reason: string) => quietPeriod(10 * STEP_MS + 500, reason);

  it('is off by default: after the receiver recovers, the dead letters stay dead letters and no job starts', async () => {
    const bot = await hookBot(ctx, world, 'plain');
    const view = await request(server())
      .get(`${MY}/${bot.botId}`)
      .set('Authorization', await asOwner(bot));
    expect(view.body.data.auto_redeliver_dead_letters).toBe(false);
    expect((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data.auto_redeliver_dead_letters).toBe(
      false,
    );
    await deadLetters(bot, ['plain-1', 'plain-2']);

    down.delete(bot.tag);
    const mark = receipts.length;
    await sayText(bot, 'plain-3');
    await readUntil(
      () => deliveriesOf(bot),
      (rows) => rows.length === 3 && rows[2].status === 'succeeded',
    );
    await settle('the dead letters of a bot without the switch stay dead letters');

    expect((await deliveriesOf(bot)).map((row) => row.status)).toEqual(['dead_letter', 'dead_letter', 'succeeded']);
    expect(receivedBy('plain', mark).map((r) => r.text)).toEqual(['plain-3']);
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM delivery_redrive_jobs WHERE bot_id = $1`, [
      bot.botId,
    ]);
    expect(count).toBe(0);
  });

  it("keeps the switch to the bot's owner: another developer gets 404, and bad or foreign fields change nothing", async () => {
    const bot = await hookBot(ctx, world, 'owned');
    const other = await hookBot(ctx, world, 'other');
    const patch = async (target: HookBot, auth: string, body: object) =>
      request(server()).patch(`${MY}/${target.botId}`).set('Authorization', auth).send(body);

    const foreign = await patch(bot, await asOwner(other), { auto_redeliver_dead_letters: true });
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
    for (const body of [
      { auto_redeliver_dead_letters: 'yes' },
      { auto_redeliver_dead_letters: null },
      { auto_redeliver_dead_letters: true, bot_id: other.botId },
    ]) {
      const bad = await patch(other, await asOwner(other), body);
      expect({ body, status: bad.status, code: bad.body.code }).toEqual({ body, status: 400, code: 'VALIDATION' });
    }
    const [owned, others] = await Promise.all(
      [bot, other].map(async (b) => (await callBot(ctx, b.token, 'getWebhookInfo').expect(200)).body.data),
    );
    expect([owned.auto_redeliver_dead_letters, others.auto_redeliver_dead_letters]).toEqual([false, false]);

    await setSwitch(other, true);
    expect((await callBot(ctx, other.token, 'getWebhookInfo').expect(200)).body.data.auto_redeliver_dead_letters).toBe(
      true,
    );
    expect((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data.auto_redeliver_dead_letters).toBe(
      false,
    );
  });

  it('gives a receiver that failed long enough to produce dead letters every one of them exactly once more, in order, without an SRE', async () => {
    const bot = await hookBot(ctx, world, 'heals');
    await setSwitch(bot, true);
    const texts = ['heal-1', 'heal-2', 'heal-3', 'heal-4', 'heal-5', 'heal-6'];
    await deadLetters(bot, texts);
    const dead = await deliveriesOf(bot);
    expect(receivedBy('heals').filter((r) => r.answered === 500)).toHaveLength(texts.length * 5);

    down.delete(bot.tag);
    const mark = receipts.length;
    await sayText(bot, 'heal-recovered');
    await readUntil(
      () => deliveriesOf(bot),
      (rows) => rows.length === texts.length + 1 && rows.every((row) => row.status === 'succeeded'),
    );
    await settle('no dead letter is delivered a second time');

    const after = receivedBy('heals', mark);
    // The recovery itself first, then each dead letter once, lowest update first.
    expect(after.map((r) => r.text)).toEqual(['heal-recovered', ...texts]);
    expect(after.every((r) => r.answered === 200)).toBe(true);
    expect(after.slice(1).map((r) => r.updateId)).toEqual(dead.map((row) => row.update_id));

    const one = await detail(bot, dead[0].update_id);
    expect({ status: one.status, trigger: one.trigger, series: one.series }).toEqual({
      status: 'succeeded',
      trigger: 'auto',
      series: 2,
    });
    expect(one.series_log).toEqual([
      { series: 1, trigger: 'first_attempt', attempts: 5 },
      { series: 2, trigger: 'auto', attempts: 1 },
    ]);
    expect(one.attempt_log.map((a: { trigger: string }) => a.trigger)).toEqual([
      ...Array(5).fill('first_attempt'),
      'auto',
    ]);

    // The job and its audit entry are the system's, and the staff console shows which way it went.
    const staff = await asStaff();
    const jobs = (await request(server()).get(`${STAFF_API}/redrives`).set('Authorization', staff).expect(200)).body
      .data.items as Array<{ id: string; kind: string; created_by: string; status: string; total: number }>;
    const auto = jobs.filter((job) => job.kind === 'auto');
    expect(auto).toHaveLength(1);
    expect(auto[0]).toMatchObject({ created_by: 'system', status: 'completed', total: texts.length });
    const audit = (
      await request(server())
        .get(`${STAFF_API}/audit?action=redrive.auto_start`)
        .set('Authorization', staff)
        .expect(200)
    ).body.data.items;
    expect(audit).toEqual([
      expect.objectContaining({ actor_id: 'system', target: auto[0].id, counts: { total: 6, rate_per_bot: 10 } }),
    ]);
    const staffView = (
      await request(server()).get(`${STAFF_API}/updates/${dead[5].update_id}`).set('Authorization', staff).expect(200)
    ).body.data;
    expect(staffView.trigger).toBe('auto');
    expect(staffView.series_log.map((s: { trigger: string }) => s.trigger)).toEqual(['first_attempt', 'auto']);
    const metrics = await request(server()).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^bot_auto_redeliveries_total 6$/m);
  });

  it('redelivers each dead letter automatically once: one that fails again waits for a person, whatever succeeds later', async () => {
    const bot = await hookBot(ctx, world, 'poison');
    await setSwitch(bot, true);
    poison.add('poison-bad');
    await deadLetters(bot, ['poison-ok', 'poison-bad']);
    const [ok, bad] = await deliveriesOf(bot);

    down.delete(bot.tag);
    await sayText(bot, 'poison-recovered');
    // The automatic series of the poison Update runs its five attempts and dies again.
    await readUntil(
      () => db.query(`SELECT status, "trigger" FROM webhook_deliveries WHERE update_id = $1`, [bad.update_id]),
      (rows: Array<{ status: string; trigger: string }>) =>
        rows[0].status === 'dead_letter' && rows[0].trigger === 'auto',
    );
    // Later successes find only a dead letter that was already redelivered automatically: nothing starts.
    for (const text of ['poison-later-1', 'poison-later-2']) await sayText(bot, text);
    await readUntil(
      () => deliveriesOf(bot),
      (rows) => rows.filter((row) => row.status === 'succeeded').length === 4,
    );
    await settle('no automatic series starts for a dead letter already redelivered automatically');

    const byText = (text: string) => receivedBy('poison').filter((r) => r.text === text);
    expect(byText('poison-bad')).toHaveLength(10);
    expect(byText('poison-ok').map((r) => r.answered)).toEqual([500, 500, 500, 500, 500, 200]);
    expect((await detail(bot, ok.update_id)).trigger).toBe('auto');
    const stuck = await detail(bot, bad.update_id);
    expect({ status: stuck.status, trigger: stuck.trigger, series_log: stuck.series_log }).toEqual({
      status: 'dead_letter',
      trigger: 'auto',
      series_log: [
        { series: 1, trigger: 'first_attempt', attempts: 5 },
        { series: 2, trigger: 'auto', attempts: 5 },
      ],
    });
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM delivery_redrive_jobs WHERE bot_id = $1 AND kind = 'auto'`,
      [bot.botId],
    );
    expect(count).toBe(1);

    // A person can still redeliver it by hand, and the series says who did.
    poison.delete('poison-bad');
    await request(server())
      .post(`${STAFF_API}/updates/${bad.update_id}/redeliver`)
      .set('Authorization', await asStaff())
      .expect(200);
    await readUntil(
      () => detail(bot, bad.update_id),
      (d: { status: string }) => d.status === 'succeeded',
    );
    expect((await detail(bot, bad.update_id)).series_log.map((s: { trigger: string }) => s.trigger)).toEqual([
      'first_attempt',
      'auto',
      'staff',
    ]);
  });

  it('names the path of every series: a developer redelivery is manual, by one or by time range, a staff one staff', async () => {
    const bot = await hookBot(ctx, world, 'paths');
    await deadLetters(bot, ['path-1', 'path-2', 'path-3']);
    const [first, second, third] = await deliveriesOf(bot);
    down.delete(bot.tag);
    const auth = await asOwner(bot);

    await request(server())
      .post(`${MY}/${bot.botId}/deliveries/${first.update_id}/redeliver`)
      .set('Authorization', auth)
      .expect(200);
    const since = new Date(Date.now() - 60_000).toISOString();
    const until = new Date(Date.now() + 60_000).toISOString();
    await request(server())
      .post(`${STAFF_API}/updates/${second.update_id}/redeliver`)
      .set('Authorization', await asStaff())
      .expect(200);
    const bulk = await request(server())
      .post(`${MY}/${bot.botId}/deliveries/redeliver`)
      .set('Authorization', auth)
      .send({ status: 'dead_letter', since, until })
      .expect(200);
    expect(bulk.body.data).toEqual({ redelivered: 1 });
    await readUntil(
      () => deliveriesOf(bot),
      (rows) => rows.every((row) => row.status === 'succeeded'),
    );

    const page = (await request(server()).get(`${MY}/${bot.botId}/deliveries`).set('Authorization', auth).expect(200))
      .body.data.items as Array<{ update_id: string; trigger: string }>;
    const triggerOf = new Map(page.map((item) => [item.update_id, item.trigger]));
    expect([first, second, third].map((row) => triggerOf.get(row.update_id))).toEqual(['manual', 'staff', 'manual']);
    const staffList = (
      await request(server())
        .get(`${STAFF_API}?bot_id=${bot.botId}`)
        .set('Authorization', await asStaff())
        .expect(200)
    ).body.data.items as Array<{ update_id: string; trigger: string }>;
    expect(new Map(staffList.map((item) => [item.update_id, item.trigger]))).toEqual(triggerOf);
    expect((await detail(bot, third.update_id)).series_log).toEqual([
      { series: 1, trigger: 'first_attempt', attempts: 5 },
      { series: 2, trigger: 'manual', attempts: 1 },
    ]);
  });
});
