import request from 'supertest';
import { Api } from 'grammy';
import { autoRetry } from '@grammyjs/auto-retry';
import { ApprovedBot, BotTestContext, createApprovedBot, pollsWaiting, startBotApp } from './app-context';
import { listenForFrameworks } from './telegram-support';

describe('Telegram face: flood limits and competing pollers in Telegram words', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let apiRoot: string;
  let chatId: number;

  beforeAll(async () => {
    ctx = await startBotApp();
    apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'limits_tg_bot' });
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/my/${bot.botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-1')}`)
      .send({ rate_limits: { send_per_sec: 1 } })
      .expect(200);
    const alice = await ctx.jwt('alice', 'Alice');
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chat.body.data.id}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'hi' })
      .expect(201);
    const api = new Api(bot.token, { apiRoot });
    const [update] = await api.getUpdates({ offset: -1 });
    chatId = update.message!.chat.id;
    await api.getUpdates({ offset: update.update_id + 1 });
  });
  afterAll(() => ctx.close());

  it('answers a used-up send quota with 429 retry_after, which grammY auto-retry waits out and then succeeds', async () => {
    const raw = new Api(bot.token, { apiRoot });
    await raw.sendMessage(chatId, 'first');
    const refused = await request(ctx.app.getHttpServer())
      .post(`/telegram/bot${bot.token}/sendMessage`)
      .send({ chat_id: chatId, text: 'too soon' })
      .expect(429);
    expect(refused.body).toEqual({
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${refused.body.parameters.retry_after}`,
      parameters: { retry_after: expect.any(Number) },
    });
    expect(refused.headers['retry-after']).toBe(String(refused.body.parameters.retry_after));

    const patient = new Api(bot.token, { apiRoot });
    patient.config.use(autoRetry());
    const sent = [];
    for (const text of ['one', 'two']) sent.push(await patient.sendMessage(chatId, text));
    expect(sent.map((message) => message.text)).toEqual(['one', 'two']);
  });

  it("ends a waiting getUpdates with Telegram's 409 text when a second one starts", async () => {
    const server = ctx.app.getHttpServer();
    const first = request(server)
      .post(`/telegram/bot${bot.token}/getUpdates`)
      .send({ timeout: 5 })
      .then((res) => res);
    await pollsWaiting(ctx.app);
    const second = request(server)
      .post(`/telegram/bot${bot.token}/getUpdates`)
      .send({ timeout: 1 })
      .then((res) => res);
    const [ended, current] = await Promise.all([first, second]);
    expect(ended.status).toBe(409);
    expect(ended.body).toEqual({
      ok: false,
      error_code: 409,
      description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
    });
    expect(current.status).toBe(200);
  });
});
