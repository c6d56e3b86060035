import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  openPrivateChat,
  startBotApp,
  submitBot,
} from './app-context';

const HOOK = 'https://hooks.example.test/bot';
const SECRET = 'S3cret_token-x';

/** Webhook configuration and the delivery console, without a dispatcher running (spec 3.2, 4.1, 4.2). */
describe('webhook configuration and delivery console', () => {
  let ctx: BotTestContext;
  let strict: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    [ctx, strict] = await Promise.all([
      startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', PLATFORM_EGRESS_IPS: '198.51.100.10, 198.51.100.11' }),
      startBotApp(),
    ]);
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'config_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    chatId = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(async () => {
    await Promise.all([ctx?.close(), strict?.close()]);
  });

  const db = () => ctx.app.get(DataSource);
  const say = (text: string) =>
    request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
  // 127.0.0.1 needs WEBHOOK_ALLOW_PRIVATE, which `ctx` has.
  const localHook = (tag: string) => `https://127.0.0.1:9/${tag}`;
  const owner = async (sub = 'dev-1') => `Bearer ${await ctx.jwt(sub)}`;

  describe('setWebhook validation', () => {
    it.each([
      ['http:// URL', { url: 'http://hooks.example.test/bot', secret_token: SECRET }, 'url'],
      ['relative URL', { url: '/bot', secret_token: SECRET }, 'url'],
      ['URL with credentials', { url: 'https://user:pw@hooks.example.test/', secret_token: SECRET }, 'url'],
      ['missing secret_token', { url: HOOK }, 'secret_token'],
      ['secret_token with other characters', { url: HOOK, secret_token: 'has space' }, 'secret_token'],
      ['secret_token over 256 characters', { url: HOOK, secret_token: 'a'.repeat(257) }, 'secret_token'],
      ['max_connections 0', { url: HOOK, secret_token: SECRET, max_connections: 0 }, 'max_connections'],
      ['max_connections 101', { url: HOOK, secret_token: SECRET, max_connections: 101 }, 'max_connections'],
      ['unknown update type', { url: HOOK, secret_token: SECRET, allowed_updates: ['messages'] }, 'allowed_updates'],
      [
        'allowed_ips with a host name',
        { url: HOOK, secret_token: SECRET, allowed_ips: ['example.com'] },
        'allowed_ips',
      ],
      ['unknown field', { url: HOOK, secret_token: SECRET, certificate: 'x' }, 'certificate'],
    ])('answers 400 VALIDATION for %s', async (_case, body, field) => {
      const res = await callBot(ctx, bot.token, 'setWebhook', body).expect(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION', message: expect.stringContaining(field) });
    });

    it.each([
      ['loopback address', 'https://127.0.0.1/hook'],
      ['private address', 'https://10.1.2.3/hook'],
      ['link-local address', 'https://169.254.169.254/latest'],
      ['IPv6 loopback', 'https://[::1]/hook'],
      ['host name resolving to loopback', 'https://localhost/hook'],
    ])('refuses a %s without WEBHOOK_ALLOW_PRIVATE with 400 VALIDATION', async (_case, url) => {
      const strictBot = await createApprovedBot(strict, `strict-${_case.length}-${url.length}`);
      const res = await callBot(strict, strictBot.token, 'setWebhook', { url, secret_token: SECRET }).expect(400);
      expect(res.body).toMatchObject({ success: false, code: 'VALIDATION', message: expect.stringContaining('url') });
      const info = await callBot(strict, strictBot.token, 'getWebhookInfo').expect(200);
      expect(info.body.data.url).toBe('');
    });

    it('refuses a host that does not resolve with 400 VALIDATION', async () => {
      const res = await callBot(ctx, bot.token, 'setWebhook', {
        url: 'https://no-such-host.invalid/hook',
        secret_token: SECRET,
      }).expect(400);
      expect(res.body.code).toBe('VALIDATION');
    });
  });

  it('sets the webhook: delivery_mode webhook, summary in getWebhookInfo (GET and POST), secret stored encrypted', async () => {
    const set = await callBot(ctx, bot.token, 'setWebhook', {
      url: localHook('a'),
      secret_token: SECRET,
      allowed_updates: ['message', 'callback_query'],
      allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
      max_connections: 7,
    }).expect(200);
    expect(set.body).toEqual({ success: true, data: true });
    const expected = {
      url: localHook('a'),
      pending_update_count: 0,
      last_error_date: null,
      last_error_message: null,
      max_connections: 7,
      allowed_updates: ['message', 'callback_query'],
      allowed_ips: ['127.0.0.1', '10.0.0.0/8'],
      platform_egress_ips: ['198.51.100.10', '198.51.100.11'],
      previous_secret_expires_at: null,
      // Self-healing dead letters are off until the developer turns them on.
      auto_redeliver_dead_letters: false,
    };
    const byGet = await request(ctx.app.getHttpServer())
      .get('/api/v1/bots/getWebhookInfo')
      .set('Authorization', `Bearer ${bot.token}`)
      .expect(200);
    expect(byGet.body.data).toEqual(expected);
    expect((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data).toEqual(expected);
    const [row] = await db().query(
      `SELECT delivery_mode, webhook_secret_ciphertext FROM bot_delivery_settings WHERE bot_id = $1`,
      [bot.botId],
    );
    expect(row.delivery_mode).toBe('webhook');
    expect(row.webhook_secret_ciphertext).not.toContain(SECRET);
    await callBot(ctx, bot.token, 'getUpdates', {}).expect(409);
  });

  it('writes a pending delivery with each Update in webhook mode, counted in pending_update_count', async () => {
    await callBot(ctx, bot.token, 'setWebhook', { url: localHook('b'), secret_token: SECRET }).expect(200);
    await say('one');
    await say('two');
    const rows = await db().query(
      `SELECT d.status, d.attempts, d.update_id = u.update_id AS same
         FROM webhook_deliveries d JOIN updates u USING (update_seq) WHERE d.bot_id = $1`,
      [bot.botId],
    );
    expect(rows).toEqual([
      { status: 'pending', attempts: 0, same: true },
      { status: 'pending', attempts: 0, same: true },
    ]);
    const info = await callBot(ctx, bot.token, 'getWebhookInfo').expect(200);
    expect(info.body.data.pending_update_count).toBe(2);
    // setWebhook without allowed_updates keeps the remembered list (decisions: remembered until changed).
    expect(info.body.data.allowed_updates).toEqual(['message', 'callback_query']);
  });

  it('deleteWebhook returns to polling: configuration removed, open deliveries withdrawn, Updates left for getUpdates', async () => {
    const res = await callBot(ctx, bot.token, 'deleteWebhook', {}).expect(200);
    expect(res.body).toEqual({ success: true, data: true });
    const info = await callBot(ctx, bot.token, 'getWebhookInfo').expect(200);
    expect(info.body.data).toMatchObject({ url: '', max_connections: null, allowed_ips: [], pending_update_count: 2 });
    const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE bot_id = $1`, [
      bot.botId,
    ]);
    expect(count).toBe(0);
    await say('three');
    const polled = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(polled.body.data.map((u: { message: { text: string } }) => u.message.text)).toEqual(['one', 'two', 'three']);
  });

  it('setWebhook queues a delivery for every Update still waiting, or drops them with drop_pending_updates', async () => {
    await callBot(ctx, bot.token, 'setWebhook', { url: localHook('c'), secret_token: SECRET }).expect(200);
    expect((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data.pending_update_count).toBe(3);
    await callBot(ctx, bot.token, 'setWebhook', {
      url: localHook('d'),
      secret_token: SECRET,
      drop_pending_updates: true,
    }).expect(200);
    expect((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data.pending_update_count).toBe(0);
    await callBot(ctx, bot.token, 'deleteWebhook', { drop_pending_updates: true }).expect(200);
    expect((await callBot(ctx, bot.token, 'getUpdates', {}).expect(200)).body.data).toEqual([]);
  });

  describe('developer routes (account JWT)', () => {
    it('PUT and DELETE /my/:botId/webhook set and remove the webhook without the bot token', async () => {
      const server = ctx.app.getHttpServer();
      const put = await request(server)
        .put(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner())
        .send({ url: localHook('dev'), secret_token: SECRET, max_connections: 3 })
        .expect(200);
      expect(put.body.data).toMatchObject({ url: localHook('dev'), max_connections: 3 });
      expect(put.body.data).not.toHaveProperty('has_custom_certificate');
      const bad = await request(server)
        .put(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner())
        .send({ url: 'http://insecure.example.test/', secret_token: SECRET })
        .expect(400);
      expect(bad.body.code).toBe('VALIDATION');
      const del = await request(server)
        .delete(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner())
        .expect(200);
      expect(del.body.data).toMatchObject({ url: '', max_connections: null });
      const [row] = await db().query(`SELECT delivery_mode, webhook_url FROM bot_delivery_settings WHERE bot_id = $1`, [
        bot.botId,
      ]);
      expect(row).toEqual({ delivery_mode: 'polling', webhook_url: null });
    });

    it('GET /my/:botId/webhook reads the configuration as getWebhookInfo shows it to the bot', async () => {
      const server = ctx.app.getHttpServer();
      await request(server)
        .put(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner())
        .send({ url: localHook('read'), secret_token: SECRET, max_connections: 7 })
        .expect(200);
      const read = await request(server)
        .get(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner())
        .expect(200);
      expect(read.body.data).toMatchObject({ url: localHook('read'), max_connections: 7 });
      expect(read.body.data).toEqual((await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data);
      await request(server)
        .delete(`/api/v1/bots/my/${bot.botId}/webhook`)
        .set('Authorization', await owner());
    });

    it("answers 404 for another account's bot on every webhook and delivery route, without its data", async () => {
      const server = ctx.app.getHttpServer();
      const other = await owner('intruder');
      const calls = [
        request(server)
          .put(`/api/v1/bots/my/${bot.botId}/webhook`)
          .send({ url: localHook('x'), secret_token: SECRET }),
        request(server).delete(`/api/v1/bots/my/${bot.botId}/webhook`),
        request(server).get(`/api/v1/bots/my/${bot.botId}/webhook`),
        request(server).get(`/api/v1/bots/my/${bot.botId}/deliveries`),
        request(server).get(`/api/v1/bots/my/${bot.botId}/deliveries/00000000-0000-4000-8000-000000000000`),
        request(server).post(`/api/v1/bots/my/${bot.botId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`),
        request(server).post(`/api/v1/bots/my/${bot.botId}/deliveries/redeliver`).send({ status: 'dead_letter' }),
      ];
      for (const call of calls) {
        const res = await call.set('Authorization', other).expect(404);
        expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
      }
    });

    it('answers 409 CONFLICT for a bot not approved yet, 401 without an account JWT', async () => {
      const pending = await submitBot(ctx, 'dev-1', { name: 'Pending bot' });
      const res = await request(ctx.app.getHttpServer())
        .put(`/api/v1/bots/my/${pending}/webhook`)
        .set('Authorization', await owner())
        .send({ url: localHook('p'), secret_token: SECRET })
        .expect(409);
      expect(res.body.code).toBe('CONFLICT');
      await request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/my/${bot.botId}/deliveries`)
        .set('Authorization', `Bearer ${bot.token}`)
        .expect(401);
    });
  });

  describe('delivery console', () => {
    let hooked: ApprovedBot;
    let updateIds: string[];

    beforeAll(async () => {
      hooked = await createApprovedBot(ctx, 'dev-2', { username: 'console_bot' });
      await callBot(ctx, hooked.token, 'setWebhook', { url: localHook('console'), secret_token: SECRET }).expect(200);
      const chat = await request(ctx.app.getHttpServer())
        .post('/api/v1/bots/client/chats/private')
        .set('Authorization', `Bearer ${alice}`)
        .send({ bot_id: hooked.botId })
        .expect(201);
      for (const text of ['a', 'b', 'c']) {
        await request(ctx.app.getHttpServer())
          .post(`/api/v1/bots/client/chats/${chat.body.data.id}/messages`)
          .set('Authorization', `Bearer ${alice}`)
          .send({ text })
          .expect(201);
      }
      const rows = await db().query(`SELECT update_id FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq`, [
        hooked.botId,
      ]);
      updateIds = rows.map((r: { update_id: string }) => r.update_id);
      // Two of them as the dispatcher leaves dead letters.
      await db().query(
        `UPDATE webhook_deliveries SET status = 'dead_letter', attempts = 5, dead_letter_at = now(),
                last_error = 'WEBHOOK_DELIVER_FAILED: 5 attempts failed; last: HTTP 500'
          WHERE update_id = ANY($1)`,
        [updateIds.slice(0, 2)],
      );
    });

    /** Console calls as the owner; each asserts the expected status. */
    const consoleGet = async (path: string, status: number) =>
      request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/my/${hooked.botId}/deliveries${path}`)
        .set('Authorization', `Bearer ${await ctx.jwt('dev-2')}`)
        .expect(status);
    const consolePost = async (path: string, body: object, status: number) =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/my/${hooked.botId}/deliveries${path}`)
        .set('Authorization', `Bearer ${await ctx.jwt('dev-2')}`)
        .send(body)
        .expect(status);

    it('lists deliveries newest first with page, pageSize and status filter', async () => {
      const all = await consoleGet('', 200);
      expect(all.body.data.total).toBe(3);
      expect(all.body.data.items.map((i: { update_id: string }) => i.update_id)).toEqual([...updateIds].reverse());
      expect(Object.keys(all.body.data.items[0])).toEqual(
        expect.arrayContaining(['update_id', 'status', 'attempts', 'dead_letter_at', 'last_error']),
      );
      const page = await consoleGet('?page=2&pageSize=2', 200);
      expect(page.body.data).toMatchObject({ total: 3, items: [{ update_id: updateIds[0] }] });
      const dead = await consoleGet('?status=dead_letter', 200);
      expect(dead.body.data.total).toBe(2);
      expect(dead.body.data.items[0]).toMatchObject({
        status: 'dead_letter',
        attempts: 5,
        dead_letter_at: expect.any(String),
        last_error: expect.stringContaining('WEBHOOK_DELIVER_FAILED'),
      });
    });

    it.each([['?pageSize=101'], ['?page=0'], ['?status=lost']])('answers 400 VALIDATION for %s', async (query) => {
      const res = await consoleGet(query, 400);
      expect(res.body.code).toBe('VALIDATION');
    });

    it('answers 404 for an unknown or malformed update id', async () => {
      await consoleGet('/00000000-0000-4000-8000-000000000000', 404);
      const res = await consoleGet('/not-a-uuid', 404);
      expect(res.body.code).toBe('NOT_FOUND');
    });

    it('refuses to redeliver a delivery that is still pending with 409 CONFLICT', async () => {
      const res = await consolePost(`/${updateIds[2]}/redeliver`, {}, 409);
      expect(res.body.code).toBe('CONFLICT');
    });

    it('validates the bulk body: status must be dead_letter, since before until', async () => {
      for (const body of [{}, { status: 'pending' }, { status: 'dead_letter', since: 'yesterday' }]) {
        expect((await consolePost('/redeliver', body, 400)).body.code).toBe('VALIDATION');
      }
      const reversed = await consolePost(
        '/redeliver',
        {
          status: 'dead_letter',
          since: '2030-01-02T00:00:00Z',
          until: '2030-01-01T00:00:00Z',
        },
        400,
      );
      expect(reversed.body.code).toBe('VALIDATION');
    });

    it('starts exactly one new series when the same dead letter is redelivered in parallel', async () => {
      const jwt = `Bearer ${await ctx.jwt('dev-2')}`;
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          request(ctx.app.getHttpServer())
            .post(`/api/v1/bots/my/${hooked.botId}/deliveries/${updateIds[0]}/redeliver`)
            .set('Authorization', jwt),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      const winner = results.find((r) => r.status === 200)!;
      expect(winner.body.data).toMatchObject({
        status: 'pending',
        series: 2,
        attempts: 0,
        dead_letter_at: null,
        last_error: null,
      });
      const bulk = await consolePost('/redeliver', { status: 'dead_letter' }, 200);
      expect(bulk.body.data).toEqual({ redelivered: 1 });
      const rows = await db().query(
        `SELECT status, series FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq`,
        [hooked.botId],
      );
      expect(rows).toEqual([
        { status: 'pending', series: 2 },
        { status: 'pending', series: 2 },
        { status: 'pending', series: 1 },
      ]);
    });

    it('refuses redelivery with 409 CONFLICT once the bot is back in polling mode', async () => {
      await db().query(`UPDATE webhook_deliveries SET status = 'succeeded', succeeded_at = now() WHERE bot_id = $1`, [
        hooked.botId,
      ]);
      await callBot(ctx, hooked.token, 'deleteWebhook', {}).expect(200);
      const res = await consolePost(`/${updateIds[0]}/redeliver`, {}, 409);
      expect(res.body.code).toBe('CONFLICT');
    });
  });
});
