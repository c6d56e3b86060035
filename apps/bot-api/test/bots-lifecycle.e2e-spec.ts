import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotCredentialsService } from '../src/bots/bot-credentials.service';
import { BotTestContext, createApprovedBot, STAFF_ID, startBotApp, submitBot } from './app-context';

describe('bot application, review and tokens', () => {
  let ctx: BotTestContext;
  let server: ReturnType<BotTestContext['app']['getHttpServer']>;
  let alice: string;
  let bob: string;
  let staff: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    server = ctx.app.getHttpServer();
    alice = `Bearer ${await ctx.jwt('alice', 'Alice')}`;
    bob = `Bearer ${await ctx.jwt('bob', 'Bob')}`;
    staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
  });
  afterAll(() => ctx.close());

  const approve = (botId: string) =>
    request(server).post(`/api/v1/bots/admin/bots/${botId}/approve`).set('Authorization', staff);
  const readToken = (botId: string, auth = alice) =>
    request(server).post(`/api/v1/bots/my/${botId}/token`).set('Authorization', auth);
  const getMe = (token: string) => request(server).get('/api/v1/bots/me').set('Authorization', `Bearer ${token}`);

  it('goes apply → approve → read once → getMe → rotate, and the old token stops at once', async () => {
    const submitted = await request(server)
      .post('/api/v1/bots/my')
      .set('Authorization', alice)
      .send({ name: 'Weather', username: 'weather_bot', description: 'Forecasts', avatar: 'https://img.example/w.png' })
      .expect(201);
    expect(submitted.body).toEqual({ success: true, data: expect.any(Object) });
    const bot = submitted.body.data;
    expect(bot).toMatchObject({
      name: 'Weather',
      username: 'weather_bot',
      review_status: 'pending',
      scopes: ['messages:send', 'messages:receive'],
      system_user_id: null,
      token_prefix: null,
      friend_request_mode: 'auto_accept',
      rate_limits: { send_per_sec: 30, send_per_min: 1200, send_per_day: 100000 },
    });
    expect(bot.bot_id).toMatch(/^[0-9a-f]{24}$/);

    const queue = await request(server)
      .get('/api/v1/bots/admin/bots?review_status=pending')
      .set('Authorization', staff)
      .expect(200);
    expect(queue.body.data.items.map((b: { bot_id: string }) => b.bot_id)).toContain(bot.bot_id);

    const approved = await approve(bot.bot_id).expect(200);
    expect(approved.body.data).toMatchObject({
      review_status: 'approved',
      status: 'enabled',
      delivery_mode: 'polling',
      system_user_id: `bot_${bot.bot_id}`,
      token_prefix: expect.stringMatching(/^sbot_/),
    });
    expect(JSON.stringify(approved.body)).not.toMatch(/sbot_[0-9A-Za-z]{43}/);

    const first = await readToken(bot.bot_id).expect(200);
    const token: string = first.body.data.one_time_token;
    expect(token).toMatch(/^sbot_[0-9A-Za-z]{43}$/);
    expect(approved.body.data.token_prefix).toBe(token.slice(0, 13));

    const second = await readToken(bot.bot_id).expect(410);
    expect(second.body).toEqual({ success: false, code: 'TOKEN_ALREADY_READ', message: expect.any(String) });

    const me = await getMe(token).expect(200);
    expect(me.body.data).toMatchObject({
      bot_id: bot.bot_id,
      id: `bot_${bot.bot_id}`,
      is_bot: true,
      username: 'weather_bot',
    });

    const rotated = await request(server)
      .post(`/api/v1/bots/my/${bot.bot_id}/token/rotate`)
      .set('Authorization', alice)
      .expect(200);
    const fresh: string = rotated.body.data.one_time_token;
    expect(fresh).toMatch(/^sbot_/);
    expect(fresh).not.toBe(token);

    const old = await getMe(token).expect(401);
    expect(old.body).toEqual({ success: false, code: 'INVALID_BOT_TOKEN', message: expect.any(String) });
    await getMe(fresh).expect(200);
    // The rotated plaintext lives only in the rotation response.
    expect((await readToken(bot.bot_id).expect(410)).body.code).toBe('TOKEN_ALREADY_READ');
  });

  it('stores only the SHA-256 of the token and an encrypted one-time copy', async () => {
    const botId = await submitBot(ctx, 'alice');
    await approve(botId).expect(200);
    const dataSource = ctx.app.get(DataSource);
    const [row] = await dataSource.query(`SELECT token_hash, one_time_token_ciphertext FROM bots WHERE id = $1`, [
      botId,
    ]);
    const token = (await readToken(botId).expect(200)).body.data.one_time_token as string;
    expect(row.one_time_token_ciphertext).not.toContain(token);
    expect(row.token_hash).toBe(require('node:crypto').createHash('sha256').update(token).digest('hex'));
    const [after] = await dataSource.query(`SELECT one_time_token_ciphertext FROM bots WHERE id = $1`, [botId]);
    expect(after.one_time_token_ciphertext).toBeNull();
  });

  it('answers 410 TOKEN_ALREADY_READ when the one-time token is read after its 7 days', async () => {
    const botId = await submitBot(ctx, 'alice');
    const approved = await approve(botId).expect(200);
    const expiresAt = new Date(approved.body.data.one_time_token_expires_at).getTime();
    expect(expiresAt - Date.now()).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(7 * 86400_000);
    await ctx.app
      .get(DataSource)
      .query(`UPDATE bots SET one_time_token_expires_at = now() - interval '1 second' WHERE id = $1`, [botId]);
    const res = await readToken(botId).expect(410);
    expect(res.body.code).toBe('TOKEN_ALREADY_READ');
  });

  it('destroys unread one-time tokens past their 7 days in the purge sweep', async () => {
    const [expired, fresh] = [await submitBot(ctx, 'alice'), await submitBot(ctx, 'alice')];
    await approve(expired).expect(200);
    await approve(fresh).expect(200);
    const dataSource = ctx.app.get(DataSource);
    await dataSource.query(`UPDATE bots SET one_time_token_expires_at = now() - interval '1 second' WHERE id = $1`, [
      expired,
    ]);
    expect(await ctx.app.get(BotCredentialsService).purgeExpired()).toBeGreaterThanOrEqual(1);
    const rows = await dataSource.query(
      `SELECT id, one_time_token_ciphertext IS NULL AS gone FROM bots WHERE id = ANY($1)`,
      [[expired, fresh]],
    );
    expect(Object.fromEntries(rows.map((r: { id: string; gone: boolean }) => [r.id, r.gone]))).toEqual({
      [expired]: true,
      [fresh]: false,
    });
    await readToken(fresh).expect(200);
  });

  it('answers 410 TOKEN_ALREADY_READ, not a 5xx, when the sealed copy cannot be opened', async () => {
    const botId = await submitBot(ctx, 'alice');
    await approve(botId).expect(200);
    await ctx.app
      .get(DataSource)
      .query(
        `UPDATE bots SET one_time_token_ciphertext = 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA' WHERE id = $1`,
        [botId],
      );
    expect((await readToken(botId).expect(410)).body.code).toBe('TOKEN_ALREADY_READ');
  });

  it('lets exactly one of two parallel one-time reads have the token', async () => {
    const botId = await submitBot(ctx, 'alice');
    await approve(botId).expect(200);
    const results = await Promise.all([readToken(botId), readToken(botId), readToken(botId)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 410, 410]);
  });

  it('answers 409 CONFLICT for a token read or rotation before approval', async () => {
    const botId = await submitBot(ctx, 'alice');
    expect((await readToken(botId).expect(409)).body.code).toBe('CONFLICT');
    const res = await request(server)
      .post(`/api/v1/bots/my/${botId}/token/rotate`)
      .set('Authorization', alice)
      .expect(409);
    expect(res.body.code).toBe('CONFLICT');
  });

  it('revokes a token so it answers 401 INVALID_BOT_TOKEN until rotation issues a new one', async () => {
    const bot = await createApprovedBot(ctx, 'alice');
    await request(server).delete(`/api/v1/bots/my/${bot.botId}/token`).set('Authorization', alice).expect(200);
    expect((await getMe(bot.token).expect(401)).body.code).toBe('INVALID_BOT_TOKEN');
    const rotated = await request(server)
      .post(`/api/v1/bots/my/${bot.botId}/token/rotate`)
      .set('Authorization', alice)
      .expect(200);
    await getMe(rotated.body.data.one_time_token).expect(200);
  });

  describe('application', () => {
    it('rejects a missing or too long name, a too long username and a bad scope with 400 VALIDATION', async () => {
      for (const body of [
        {},
        { name: '   ' },
        { name: 'x'.repeat(101) },
        { name: 'ok', username: 'u'.repeat(65) },
        { name: 'ok', username: 'has space' },
        { name: 'ok', scopes: ['Not A Scope'] },
        { name: 'ok', avatar: 'not a url' },
        { name: 'ok', owner_id: 'mallory' },
      ]) {
        const res = await request(server).post('/api/v1/bots/my').set('Authorization', alice).send(body).expect(400);
        expect(res.body).toEqual({ success: false, code: 'VALIDATION', message: expect.any(String) });
      }
    });

    it('accepts a name of exactly 100 and a username of exactly 64 characters', async () => {
      await request(server)
        .post('/api/v1/bots/my')
        .set('Authorization', alice)
        .send({ name: 'n'.repeat(100), username: `u${'x'.repeat(63)}` })
        .expect(201);
    });

    it('keeps usernames unique case-insensitively, also under parallel submissions', async () => {
      await request(server)
        .post('/api/v1/bots/my')
        .set('Authorization', alice)
        .send({ name: 'A', username: 'Unique_One' })
        .expect(201);
      const dup = await request(server)
        .post('/api/v1/bots/my')
        .set('Authorization', bob)
        .send({ name: 'B', username: 'unique_one' })
        .expect(409);
      expect(dup.body).toEqual({ success: false, code: 'CONFLICT', message: expect.any(String) });

      const results = await Promise.all(
        [alice, bob, alice, bob].map((auth) =>
          request(server)
            .post('/api/v1/bots/my')
            .set('Authorization', auth)
            .send({ name: 'Race', username: 'RaceName' }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    });

    it('releases the username of a rejected application', async () => {
      const botId = await submitBot(ctx, 'alice', { username: 'second_try' });
      const rejected = await request(server)
        .post(`/api/v1/bots/admin/bots/${botId}/reject`)
        .set('Authorization', staff)
        .send({ reason: 'Name is misleading' })
        .expect(200);
      expect(rejected.body.data).toMatchObject({ review_status: 'rejected', rejection_reason: 'Name is misleading' });
      await request(server)
        .post('/api/v1/bots/my')
        .set('Authorization', alice)
        .send({ name: 'Again', username: 'Second_Try' })
        .expect(201);
    });

    it('takes the given scopes instead of the defaults', async () => {
      const res = await request(server)
        .post('/api/v1/bots/my')
        .set('Authorization', alice)
        .send({ name: 'Receiver', scopes: ['messages:receive'] })
        .expect(201);
      expect(res.body.data.scopes).toEqual(['messages:receive']);
    });
  });

  describe('developer routes', () => {
    it('lists only my bots with status and token prefix, paginated with total', async () => {
      const owner = `Bearer ${await ctx.jwt('lister')}`;
      const bot = await createApprovedBot(ctx, 'lister');
      await submitBot(ctx, 'lister');
      await submitBot(ctx, 'someone-else');
      const res = await request(server)
        .get('/api/v1/bots/my?page=1&pageSize=1')
        .set('Authorization', owner)
        .expect(200);
      expect(res.body.data).toMatchObject({ total: 2, page: 1, pageSize: 1 });
      expect(res.body.data.items).toHaveLength(1);
      const all = await request(server).get('/api/v1/bots/my').set('Authorization', owner).expect(200);
      const listed = all.body.data.items.find((b: { bot_id: string }) => b.bot_id === bot.botId);
      expect(listed).toMatchObject({
        status: 'enabled',
        review_status: 'approved',
        token_prefix: bot.token.slice(0, 13),
      });
      expect(JSON.stringify(all.body)).not.toContain(bot.token);
      await request(server).get('/api/v1/bots/my?pageSize=101').set('Authorization', owner).expect(400);
    });

    it("answers 404 when account B reads, updates, reads the token of or rotates account A's bot", async () => {
      const bot = await createApprovedBot(ctx, 'alice');
      const pending = await submitBot(ctx, 'alice');
      for (const id of [bot.botId, pending]) {
        const calls = [
          request(server).get(`/api/v1/bots/my/${id}`).set('Authorization', bob),
          request(server).patch(`/api/v1/bots/my/${id}`).set('Authorization', bob).send({ name: 'Stolen' }),
          request(server).post(`/api/v1/bots/my/${id}/token`).set('Authorization', bob),
          request(server).post(`/api/v1/bots/my/${id}/token/rotate`).set('Authorization', bob),
          request(server).delete(`/api/v1/bots/my/${id}/token`).set('Authorization', bob),
        ];
        for (const res of await Promise.all(calls)) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
        }
      }
      await getMe(bot.token).expect(200);
      const mine = await request(server).get(`/api/v1/bots/my/${bot.botId}`).set('Authorization', alice).expect(200);
      expect(mine.body.data.name).not.toBe('Stolen');
    });

    it('answers 404 for an unknown bot id', async () => {
      await request(server).get('/api/v1/bots/my/ffffffffffffffffffffffff').set('Authorization', alice).expect(404);
      await request(server).get('/api/v1/bots/my/not-an-id').set('Authorization', alice).expect(404);
    });

    it('refuses updates before approval with 409 CONFLICT and applies them after', async () => {
      const botId = await submitBot(ctx, 'alice', { username: 'patch_me' });
      const early = await request(server)
        .patch(`/api/v1/bots/my/${botId}`)
        .set('Authorization', alice)
        .send({ name: 'New' })
        .expect(409);
      expect(early.body.code).toBe('CONFLICT');
      await approve(botId).expect(200);
      const res = await request(server)
        .patch(`/api/v1/bots/my/${botId}`)
        .set('Authorization', alice)
        .send({
          name: 'Renamed',
          username: 'patched_name',
          description: 'Line one\nLine two',
          avatar: null,
          supports_inline_queries: true,
          rate_limits: { send_per_sec: 10, send_per_day: 500 },
        })
        .expect(200);
      expect(res.body.data).toMatchObject({
        name: 'Renamed',
        username: 'patched_name',
        description: 'Line one\nLine two',
        avatar: null,
        supports_inline_queries: true,
        rate_limits: { send_per_sec: 10, send_per_min: 1200, send_per_day: 500 },
      });
      const [user] = await ctx.app
        .get(DataSource)
        .query(`SELECT name, username, is_bot FROM users WHERE id = $1`, [`bot_${botId}`]);
      expect(user).toEqual({ name: 'Renamed', username: 'patched_name', is_bot: true });
    });

    it('refuses developer rate limits above the global default, and a null name, with 400 VALIDATION', async () => {
      const bot = await createApprovedBot(ctx, 'alice');
      for (const body of [
        { rate_limits: { send_per_sec: 31 } },
        { rate_limits: { send_per_min: 1201 } },
        { rate_limits: { send_per_day: 100001 } },
        { rate_limits: { send_per_sec: 0 } },
        { name: null },
        { supports_inline_queries: 'yes' },
        { scopes: ['messages:send'] },
      ]) {
        const res = await request(server)
          .patch(`/api/v1/bots/my/${bot.botId}`)
          .set('Authorization', alice)
          .send(body)
          .expect(400);
        expect(res.body.code).toBe('VALIDATION');
      }
      await request(server)
        .patch(`/api/v1/bots/my/${bot.botId}`)
        .set('Authorization', alice)
        .send({ rate_limits: { send_per_sec: 30, send_per_min: 1200, send_per_day: 100000 } })
        .expect(200);
    });
  });

  describe('staff review', () => {
    it('refuses review routes to accounts without platform_admin (403 FORBIDDEN) and to anonymous callers (401)', async () => {
      const botId = await submitBot(ctx, 'alice');
      const res = await request(server)
        .post(`/api/v1/bots/admin/bots/${botId}/approve`)
        .set('Authorization', alice)
        .expect(403);
      expect(res.body).toEqual({ success: false, code: 'FORBIDDEN', message: expect.any(String) });
      await request(server).get('/api/v1/bots/admin/bots').set('Authorization', alice).expect(403);
      await request(server).get('/api/v1/bots/admin/bots').expect(401);
    });

    it('approves a pending bot exactly once under parallel approvals', async () => {
      const botId = await submitBot(ctx, 'alice');
      const results = await Promise.all([approve(botId), approve(botId), approve(botId)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect(results.find((r) => r.status === 409)!.body.code).toBe('CONFLICT');
      const [{ count }] = await ctx.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS count FROM users WHERE id = $1`, [`bot_${botId}`]);
      expect(count).toBe(1);
    });

    it('requires a reason to reject and refuses to review a bot twice', async () => {
      const botId = await submitBot(ctx, 'alice');
      await request(server)
        .post(`/api/v1/bots/admin/bots/${botId}/reject`)
        .set('Authorization', staff)
        .send({})
        .expect(400);
      await request(server)
        .post(`/api/v1/bots/admin/bots/${botId}/reject`)
        .set('Authorization', staff)
        .send({ reason: 'Spam' })
        .expect(200);
      expect((await approve(botId).expect(409)).body.code).toBe('CONFLICT');
      await request(server)
        .post('/api/v1/bots/admin/bots/ffffffffffffffffffffffff/approve')
        .set('Authorization', staff)
        .expect(404);
    });

    it('disables a bot so its token answers 403 BOT_NOT_AVAILABLE, and enables it again', async () => {
      const bot = await createApprovedBot(ctx, 'alice');
      const res = await request(server)
        .patch(`/api/v1/bots/admin/bots/${bot.botId}`)
        .set('Authorization', staff)
        .send({ status: 'disabled', virtual_members_enabled: true, rate_limits: { send_per_sec: 500 } })
        .expect(200);
      expect(res.body.data).toMatchObject({
        status: 'disabled',
        virtual_members_enabled: true,
        rate_limits: { send_per_sec: 500 },
      });
      const blocked = await getMe(bot.token).expect(403);
      expect(blocked.body).toEqual({ success: false, code: 'BOT_NOT_AVAILABLE', message: expect.any(String) });
      await request(server)
        .patch(`/api/v1/bots/admin/bots/${bot.botId}`)
        .set('Authorization', staff)
        .send({ status: 'enabled' })
        .expect(200);
      await getMe(bot.token).expect(200);
    });

    it('refuses an unknown status value and enabling a bot that is not approved', async () => {
      const botId = await submitBot(ctx, 'alice');
      await request(server)
        .patch(`/api/v1/bots/admin/bots/${botId}`)
        .set('Authorization', staff)
        .send({ status: 'paused' })
        .expect(400);
      const res = await request(server)
        .patch(`/api/v1/bots/admin/bots/${botId}`)
        .set('Authorization', staff)
        .send({ status: 'enabled' })
        .expect(409);
      expect(res.body.code).toBe('CONFLICT');
    });
  });
});
