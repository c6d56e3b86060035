import request from 'supertest';
import { ApprovedBot, BotTestContext, createApprovedBot, STAFF_ID, startBotApp, submitBot } from './app-context';

describe('bot token authentication', () => {
  let ctx: BotTestContext;
  let server: ReturnType<BotTestContext['app']['getHttpServer']>;
  let bot: ApprovedBot;

  beforeAll(async () => {
    ctx = await startBotApp();
    server = ctx.app.getHttpServer();
    bot = await createApprovedBot(ctx, 'dev', { username: 'auth_bot' });
  });
  afterAll(() => ctx.close());

  const expectError = (res: request.Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, code, message: expect.any(String) });
  };

  it('answers 401 BOT_TOKEN_REQUIRED without a bearer token', async () => {
    expectError(await request(server).get('/api/v1/bots/me'), 401, 'BOT_TOKEN_REQUIRED');
    expectError(
      await request(server).post('/api/v1/bots/getMe').set('Authorization', 'Basic abc'),
      401,
      'BOT_TOKEN_REQUIRED',
    );
    expectError(
      await request(server).post('/api/v1/bots/getMe').set('Authorization', 'Bearer '),
      401,
      'BOT_TOKEN_REQUIRED',
    );
  });

  it('answers 401 INVALID_BOT_TOKEN for unknown, malformed, account-JWT and application tokens', async () => {
    const jwt = await ctx.jwt('dev');
    for (const token of [
      `sbot_${'A'.repeat(43)}`,
      'sbot_short',
      bot.token.slice(0, -1),
      `${bot.token}x`,
      jwt,
      `sop_${'a'.repeat(43)}`,
      'garbage',
    ]) {
      expectError(
        await request(server).get('/api/v1/bots/me').set('Authorization', `Bearer ${token}`),
        401,
        'INVALID_BOT_TOKEN',
      );
    }
  });

  it('refuses a bot token on developer and staff routes with 401', async () => {
    for (const call of [
      request(server).get('/api/v1/bots/my'),
      request(server).get(`/api/v1/bots/my/${bot.botId}`),
      request(server).post(`/api/v1/bots/my/${bot.botId}/token/rotate`),
      request(server).get('/api/v1/bots/admin/bots'),
      request(server).post(`/api/v1/bots/client/bots/${bot.botId}/friend-requests`).send({}),
    ]) {
      const res = await call.set('Authorization', `Bearer ${bot.token}`);
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
    }
  });

  it("refuses an account JWT whose subject is a bot's system user id", async () => {
    const impostor = await ctx.jwt(bot.systemUserId, 'Impostor');
    const res = await request(server).get('/api/v1/bots/my').set('Authorization', `Bearer ${impostor}`);
    expectError(res, 401, 'UNAUTHORIZED');
    const me = await request(server).get('/api/v1/bots/me').set('Authorization', `Bearer ${bot.token}`).expect(200);
    expect(me.body.data.name).not.toBe('Impostor');
  });

  it('answers getMe on GET /me, GET /getMe and POST /getMe with the same bot', async () => {
    const auth = `Bearer ${bot.token}`;
    const responses = await Promise.all([
      request(server).get('/api/v1/bots/me').set('Authorization', auth),
      request(server).get('/api/v1/bots/getMe').set('Authorization', auth),
      request(server).post('/api/v1/bots/getMe').set('Authorization', auth),
    ]);
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: expect.objectContaining({
          bot_id: bot.botId,
          id: bot.systemUserId,
          is_bot: true,
          username: 'auth_bot',
          scopes: ['messages:send', 'messages:receive'],
        }),
      });
      expect(JSON.stringify(res.body)).not.toContain(bot.token);
    }
  });

  it('answers 403 BOT_NOT_AVAILABLE for a disabled bot', async () => {
    const disabled = await createApprovedBot(ctx, 'dev');
    const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
    await request(server)
      .patch(`/api/v1/bots/admin/bots/${disabled.botId}`)
      .set('Authorization', staff)
      .send({ status: 'disabled' })
      .expect(200);
    expectError(
      await request(server).get('/api/v1/bots/me').set('Authorization', `Bearer ${disabled.token}`),
      403,
      'BOT_NOT_AVAILABLE',
    );
  });

  describe('verifyToken', () => {
    const verify = (body: object) => request(server).post('/api/v1/bots/verifyToken').send(body);

    it('answers valid with the bot id for a working token, without authentication', async () => {
      const res = await verify({ token: bot.token }).expect(200);
      expect(res.body).toEqual({ success: true, data: { valid: true, bot_id: bot.botId } });
    });

    it('answers only valid:false for unknown, malformed, foreign-kind and unavailable tokens', async () => {
      const disabled = await createApprovedBot(ctx, 'dev');
      const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
      await request(server)
        .patch(`/api/v1/bots/admin/bots/${disabled.botId}`)
        .set('Authorization', staff)
        .send({ status: 'disabled' })
        .expect(200);
      for (const token of [
        `sbot_${'B'.repeat(43)}`,
        'nope',
        await ctx.jwt('dev'),
        `sop_${'x'.repeat(43)}`,
        disabled.token,
      ]) {
        const res = await verify({ token }).expect(200);
        expect(res.body).toEqual({ success: true, data: { valid: false } });
      }
    });

    it('answers 401 BOT_TOKEN_REQUIRED without a token and 400 VALIDATION for a non-string token', async () => {
      expectError(await verify({}), 401, 'BOT_TOKEN_REQUIRED');
      expectError(await verify({ token: '' }), 401, 'BOT_TOKEN_REQUIRED');
      expectError(await verify({ token: 42 }), 400, 'VALIDATION');
      expectError(await verify({ token: bot.token, extra: 1 }), 400, 'VALIDATION');
    });
  });

  it('gives a pending bot no token at all', async () => {
    const pending = await submitBot(ctx, 'dev');
    const res = await request(server)
      .get(`/api/v1/bots/my/${pending}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev')}`)
      .expect(200);
    expect(res.body.data).toMatchObject({ review_status: 'pending', token_prefix: null, status: 'disabled' });
  });
});
