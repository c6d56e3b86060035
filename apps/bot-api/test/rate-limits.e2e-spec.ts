import { describeEachBackend } from '@app/testing';
import request from 'supertest';
import { BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';

/** Security review, defect 4: bot-api had no request rate limits although spec section 7 promises RATE_LIMITED. */
describeEachBackend('route rate limits', (backend) => {
  let ctx: BotTestContext;
  const server = () => ctx.app.getHttpServer();

  beforeAll(async () => {
    ctx = await startBotApp({
      COORDINATION_BACKEND: backend,
      RATE_LIMITS: 'verify_token=2,client.write=2,client.read=3,set_webhook=2,developer=50',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  afterAll(() => ctx.close());

  const expectRateLimited = (res: request.Response, limit: number) => {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  };

  it('defect 4: limits the public verifyToken per client address, with the X-RateLimit headers on every answer', async () => {
    const verify = () => request(server()).post('/api/v1/bots/verifyToken').send({ token: 'sbot_unknown' });
    const first = await verify();
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    await verify().expect(200);
    expectRateLimited(await verify(), 2);
  });

  it('defect 4: limits client routes per account, reads and writes apart, without touching another account', async () => {
    const bot = await createApprovedBot(ctx, 'dev-limits');
    const [alice, bob] = [await ctx.jwt('alice-limits'), await ctx.jwt('bob-limits')];
    const open = (jwt: string) =>
      request(server())
        .post('/api/v1/bots/client/chats/private')
        .set('Authorization', `Bearer ${jwt}`)
        .send({ bot_id: bot.botId });
    const chatId = (await open(alice).expect(201)).body.data.id as string;
    await request(server())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'hi' })
      .expect(201);
    expectRateLimited(
      await request(server())
        .post(`/api/v1/bots/client/chats/${chatId}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ text: 'again' }),
      2,
    );
    await request(server())
      .get(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    await open(bob).expect(201);
  });

  it('defect 4: limits setWebhook per bot, so its DNS look-ups are bounded', async () => {
    const bot = await createApprovedBot(ctx, 'dev-hooks');
    const other = await createApprovedBot(ctx, 'dev-hooks');
    const set = (token: string) =>
      callBot(ctx, token, 'setWebhook', { url: 'https://127.0.0.1:9/hook', secret_token: 'secret-token-123' });
    await set(bot.token).expect(200);
    await set(bot.token).expect(200);
    expectRateLimited(await set(bot.token), 2);
    await set(other.token).expect(200);
  });
});
