import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp, describeEachBackend } from '@app/testing';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  openPrivateChat,
  pollsWaiting,
  startBotApp,
} from './app-context';

describeEachBackend('getUpdates: offset, limit, long polling, conflicts (spec 6.5)', (backend) => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    ctx = await startBotApp({ COORDINATION_BACKEND: backend });
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'poll_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    chatId = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(() => ctx.close());

  function say(text: string, app: INestApplication = ctx.app) {
    return request(app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
  }

  /** Confirms everything pending so each test starts from an empty queue. */
  async function confirmAll(token = bot.token): Promise<void> {
    const res = await callBot(ctx, token, 'getUpdates', {}).expect(200);
    const last = res.body.data.at(-1);
    if (last) await callBot(ctx, token, 'getUpdates', { offset: last.update_seq + 1, timeout: 0 }).expect(200);
  }

  const texts = (body: { data: Array<{ message?: { text: string } }> }) => body.data.map((u) => u.message?.text);

  it('never returns an Update again once a later offset confirmed it, and keeps unconfirmed ones', async () => {
    await confirmAll();
    await say('one');
    await say('two');
    await say('three');
    const first = await callBot(ctx, bot.token, 'getUpdates', { limit: 2 }).expect(200);
    expect(texts(first.body)).toEqual(['one', 'two']);
    const next = first.body.data[1].update_seq + 1;
    const second = await callBot(ctx, bot.token, 'getUpdates', { offset: next }).expect(200);
    expect(texts(second.body)).toEqual(['three']);
    const repeated = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(texts(repeated.body)).toEqual(['three']);
    const done = await callBot(ctx, bot.token, 'getUpdates', { offset: second.body.data[0].update_seq + 1 }).expect(
      200,
    );
    expect(done.body.data).toEqual([]);
    const again = await callBot(ctx, bot.token, 'getUpdates', { limit: 100 }).expect(200);
    expect(again.body.data).toEqual([]);
  });

  it('answers GET with query parameters, allowed_updates given comma-separated', async () => {
    await confirmAll();
    await say('via get');
    const res = await request(ctx.app.getHttpServer())
      .get('/api/v1/bots/getUpdates?limit=5&timeout=0&allowed_updates=message,edited_message')
      .set('Authorization', `Bearer ${bot.token}`)
      .expect(200);
    expect(texts(res.body)).toEqual(['via get']);
    await confirmAll();
  });

  it('rejects limit, timeout, offset and allowed_updates outside their ranges with 400 VALIDATION', async () => {
    for (const body of [
      { limit: 0 },
      { limit: 101 },
      { timeout: 51 },
      { timeout: -1 },
      { offset: -1 },
      { allowed_updates: ['nope'] },
    ]) {
      const res = await callBot(ctx, bot.token, 'getUpdates', body).expect(400);
      expect(res.body).toEqual({ success: false, code: 'VALIDATION', message: expect.any(String) });
    }
  });

  it('remembers allowed_updates until changed', async () => {
    await confirmAll();
    await callBot(ctx, bot.token, 'getUpdates', { allowed_updates: ['edited_message'] }).expect(200);
    const posted = await say('not subscribed');
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/client/chats/${chatId}/messages/${posted.body.data.message_id}`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'edited' })
      .expect(200);
    const res = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(res.body.data.map((u: { type: string }) => u.type)).toEqual(['edited_message']);
    await callBot(ctx, bot.token, 'getUpdates', {
      allowed_updates: [],
      offset: res.body.data[0].update_seq + 1,
    }).expect(200);
    await say('subscribed again');
    const back = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(texts(back.body)).toEqual(['subscribed again']);
    await confirmAll();
  });

  it('wakes a waiting long poll within milliseconds of a new user message', async () => {
    await confirmAll();
    const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => ({ res, at: Date.now() }));
    await pollsWaiting(ctx.app);
    const postingAt = Date.now();
    await say('wake up');
    const postedAt = Date.now();
    const { res, at } = await poll;
    expect(res.status).toBe(200);
    expect(texts(res.body)).toEqual(['wake up']);
    // Still open when the message was sent: it waited for it rather than answering at once.
    expect(at).toBeGreaterThanOrEqual(postingAt);
    // The bound is generous for a loaded test machine; bench/long-poll-latency.ts measures the real figure.
    expect(at - postedAt).toBeLessThan(100);
    await confirmAll();
  });

  it('reports written Updates and waiting polls on /metrics', async () => {
    await confirmAll();
    const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => res);
    await pollsWaiting(ctx.app);
    const during = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
    expect(during.text).toMatch(/^bot_get_updates_waiting 1$/m);
    await say('counted');
    await poll;
    const after = await request(ctx.app.getHttpServer()).get('/metrics').expect(200);
    expect(after.text).toMatch(/^bot_updates_written_total\{type="message"\} \d+$/m);
    expect(after.text).toMatch(/^bot_get_updates_waiting 0$/m);
    await confirmAll();
  });

  it('returns an empty list when the long poll times out', async () => {
    await confirmAll();
    const started = Date.now();
    const res = await callBot(ctx, bot.token, 'getUpdates', { timeout: 1 }).expect(200);
    expect(res.body.data).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('ends the first of two concurrent getUpdates calls of one bot with 409 CONFLICT', async () => {
    await confirmAll();
    // supertest sends on then(): start the first call now, not when it is awaited.
    const first = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => res);
    await pollsWaiting(ctx.app);
    const second = await callBot(ctx, bot.token, 'getUpdates', { timeout: 0 }).expect(200);
    expect(second.body.data).toEqual([]);
    const ended = await first;
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({ success: false, code: 'CONFLICT', message: expect.any(String) });
  });

  describe('with a second replica on the same database (and Redis prefix)', () => {
    let other: INestApplication;

    beforeAll(async () => {
      other = await createTestApp(AppModule.forRoot(ctx.config));
    });
    afterAll(() => other.close());

    it('wakes a poll waiting on one instance for a message posted through the other', async () => {
      await confirmAll();
      const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => ({ res, at: Date.now() }));
      await pollsWaiting(ctx.app);
      await say('across instances', other);
      const postedAt = Date.now();
      const { res, at } = await poll;
      expect(texts(res.body)).toEqual(['across instances']);
      expect(at - postedAt).toBeLessThan(500);
      await confirmAll();
    });

    it('wakes the polls of every bot of a group, waiting on either replica, for one message', async () => {
      const bots = [
        await createApprovedBot(ctx, 'dev-2', { username: 'group_one_bot' }),
        await createApprovedBot(ctx, 'dev-2', { username: 'group_two_bot' }),
      ];
      const group = await request(ctx.app.getHttpServer())
        .post('/api/v1/bots/client/chats')
        .set('Authorization', `Bearer ${alice}`)
        .send({ type: 'group', title: 'Both', member_ids: bots.map((member) => member.systemUserId) })
        .expect(201);
      const offsets: number[] = [];
      for (const member of bots) {
        const pending = (await callBot(ctx, member.token, 'getUpdates', { timeout: 0 }).expect(200)).body.data;
        offsets.push((pending.at(-1)?.update_seq ?? 0) + 1);
      }
      const replicas = [ctx.app, other];
      const polls = bots.map((member, index) =>
        request(replicas[index].getHttpServer())
          .post('/api/v1/bots/getUpdates')
          .set('Authorization', `Bearer ${member.token}`)
          .send({ offset: offsets[index], timeout: 20 })
          .then((res) => res),
      );
      await Promise.all(replicas.map((replica) => pollsWaiting(replica)));
      await request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client/chats/${group.body.data.id}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ text: '/start' })
        .expect(201);
      const postedAt = Date.now();
      for (const res of await Promise.all(polls)) expect(texts(res.body)).toEqual(['/start']);
      // Well before UPDATES_POLL_RECHECK_MS (5 s): the wake-up reached both replicas.
      expect(Date.now() - postedAt).toBeLessThan(2000);
    });

    it('ends a poll waiting on one instance with 409 when the bot polls the other', async () => {
      const first = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => res);
      await pollsWaiting(ctx.app);
      await request(other.getHttpServer())
        .post('/api/v1/bots/getUpdates')
        .set('Authorization', `Bearer ${bot.token}`)
        .send({ timeout: 0 })
        .expect(200);
      const ended = await first;
      expect(ended.status).toBe(409);
      expect(ended.body.code).toBe('CONFLICT');
    });
  });

  it('finds an Update whose notification was lost by re-reading the database while waiting', async () => {
    const config = Object.assign(new BotConfig(), ctx.config, { UPDATES_POLL_RECHECK_MS: 200 });
    const instance = await createTestApp(AppModule.forRoot(config));
    try {
      await confirmAll();
      const started = Date.now();
      const poll = request(instance.getHttpServer())
        .post('/api/v1/bots/getUpdates')
        .set('Authorization', `Bearer ${bot.token}`)
        .send({ timeout: 20 })
        .then((res) => res);
      await pollsWaiting(instance);
      // Written behind the service's back: no wake-up is ever published for it.
      const updateId = randomUUID();
      const message = {
        message_id: Number.MAX_SAFE_INTEGER,
        chat: { id: chatId, type: 'private', title: null },
        from: { id: 'alice', is_bot: false, username: null, first_name: 'Alice' },
        date: Math.floor(Date.now() / 1000),
        kind: 'text',
        text: 'silent',
        metadata: {},
      };
      await ctx.app
        .get(DataSource)
        .query(`INSERT INTO updates (update_id, bot_id, type, payload) VALUES ($1, $2, 'message', $3)`, [
          updateId,
          bot.botId,
          { update_id: updateId, type: 'message', bot_id: bot.botId, message },
        ]);
      const res = await poll;
      expect(texts(res.body)).toEqual(['silent']);
      expect(Date.now() - started).toBeLessThan(3000);
      await confirmAll();
    } finally {
      await instance.close();
    }
  });

  it('answers 409 CONFLICT in webhook mode', async () => {
    const webhookBot = await createApprovedBot(ctx, 'dev-2', { username: 'hook_bot' });
    await ctx.app
      .get(DataSource)
      .query(`UPDATE bot_delivery_settings SET delivery_mode = 'webhook' WHERE bot_id = $1`, [webhookBot.botId]);
    const res = await callBot(ctx, webhookBot.token, 'getUpdates', {}).expect(409);
    expect(res.body).toEqual({ success: false, code: 'CONFLICT', message: expect.stringContaining('webhook') });
  });

  it('keeps unconfirmed Updates 24 hours: older ones are not returned', async () => {
    await confirmAll();
    const db = ctx.app.get(DataSource);
    await say('old news');
    await say('fresh news');
    await db.query(
      `UPDATE updates SET created_at = now() - interval '25 hours'
        WHERE bot_id = $1 AND payload->'message'->>'text' = 'old news'`,
      [bot.botId],
    );
    const res = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(texts(res.body)).toEqual(['fresh news']);
    await confirmAll();
  });

  it('releases a waiting long poll at once when the application shuts down', async () => {
    const instance = await createTestApp(AppModule.forRoot(ctx.config));
    const poll = request(instance.getHttpServer())
      .post('/api/v1/bots/getUpdates')
      .set('Authorization', `Bearer ${bot.token}`)
      .send({ timeout: 30 });
    const pending = poll.then((res) => res);
    await pollsWaiting(instance);
    const closing = Date.now();
    await instance.close();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(Date.now() - closing).toBeLessThan(2000);
  });
});
