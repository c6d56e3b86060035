import request from 'supertest';
import { Bot as GrammyBot } from 'grammy';
import { ApprovedBot, BotTestContext, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import { listenForFrameworks, tg, until } from './telegram-support';

describe('Telegram face: route, auth, errors, getMe, getUpdates, sendMessage', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let alice: string;
  let chatUuid: string;
  let apiRoot: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { name: 'Echo Bot', username: 'echo_tg_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { name: 'Other Bot', username: 'other_tg_bot' });
    alice = await ctx.jwt('alice', 'Alice Liddell');
    chatUuid = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(() => ctx.close());

  function say(text: string) {
    return request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatUuid}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
  }

  async function drain(token = bot.token): Promise<void> {
    const res = await tg(ctx, token, 'getUpdates', {}).expect(200);
    const last = res.body.result.at(-1);
    if (last) await tg(ctx, token, 'getUpdates', { offset: last.update_id + 1 }).expect(200);
  }

  it('answers getMe in Telegram shape with an integer id, by GET and POST, method names case-insensitive', async () => {
    const byPost = await tg(ctx, bot.token, 'getMe').expect(200);
    expect(byPost.body).toEqual({
      ok: true,
      result: expect.objectContaining({ is_bot: true, first_name: 'Echo Bot', username: 'echo_tg_bot' }),
    });
    expect(Number.isSafeInteger(byPost.body.result.id)).toBe(true);
    const byGet = await request(ctx.app.getHttpServer()).get(`/telegram/bot${bot.token}/GETME`).expect(200);
    expect(byGet.body.result.id).toBe(byPost.body.result.id);
  });

  it('answers an unknown or revoked token with 401 Unauthorized and an unknown method with 404', async () => {
    const unknown = await tg(ctx, `sbot_${'x'.repeat(43)}`, 'getMe').expect(401);
    expect(unknown.body).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const missing = await tg(ctx, bot.token, 'sendGift').expect(404);
    expect(missing.body).toEqual({ ok: false, error_code: 404, description: 'Not Found: method not found' });
  });

  it('delivers a user message as a Telegram Update whose update_id confirms with offset', async () => {
    await drain();
    await say('hello /start@echo_tg_bot');
    const res = await tg(ctx, bot.token, 'getUpdates', { timeout: 0 }).expect(200);
    expect(res.body.result).toHaveLength(1);
    const [update] = res.body.result;
    expect(Number.isSafeInteger(update.update_id)).toBe(true);
    expect(update.message).toEqual(
      expect.objectContaining({
        text: 'hello /start@echo_tg_bot',
        chat: { id: expect.any(Number), type: 'private' },
        from: expect.objectContaining({ is_bot: false, first_name: 'Alice Liddell' }),
        entities: [{ type: 'bot_command', offset: 6, length: 18 }],
      }),
    );
    expect(Number.isSafeInteger(update.message.date)).toBe(true);
    await tg(ctx, bot.token, 'getUpdates', { offset: update.update_id + 1 }).expect(200);
    const after = await tg(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(after.body.result).toEqual([]);
  });

  it('keeps only the last |offset| pending Updates for a negative offset', async () => {
    await drain();
    await say('one');
    await say('two');
    await say('three');
    const res = await tg(ctx, bot.token, 'getUpdates', { offset: -1 }).expect(200);
    expect(res.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(['three']);
    const again = await tg(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(again.body.result.map((u: { message: { text: string } }) => u.message.text)).toEqual(['three']);
  });

  it('sends into the chat by its integer id, and answers an empty text with Telegram wording', async () => {
    await drain();
    await say('where am I');
    const [update] = (await tg(ctx, bot.token, 'getUpdates', {}).expect(200)).body.result;
    const chatId: number = update.message.chat.id;
    const sent = await request(ctx.app.getHttpServer())
      .post(`/telegram/bot${bot.token}/sendMessage`)
      .type('form')
      .send({
        chat_id: String(chatId),
        text: 'reply',
        reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'ok', callback_data: 'k' }]] }),
      })
      .expect(200);
    expect(sent.body.result).toEqual(
      expect.objectContaining({
        text: 'reply',
        chat: { id: chatId, type: 'private' },
        from: expect.objectContaining({ is_bot: true, username: 'echo_tg_bot' }),
        reply_markup: { inline_keyboard: [[{ text: 'ok', callback_data: 'k' }]] },
      }),
    );
    const empty = await tg(ctx, bot.token, 'sendMessage', { chat_id: chatId, text: '' }).expect(400);
    expect(empty.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
  });

  it('never lets another bot reach a chat through its integer id: it answers chat not found', async () => {
    await drain();
    await say('mine');
    const [update] = (await tg(ctx, bot.token, 'getUpdates', {}).expect(200)).body.result;
    const res = await tg(ctx, other.token, 'sendMessage', { chat_id: update.message.chat.id, text: 'intrude' }).expect(
      400,
    );
    expect(res.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    const unknown = await tg(ctx, other.token, 'sendMessage', { chat_id: 987654321, text: 'x' }).expect(400);
    expect(unknown.body.description).toBe('Bad Request: chat not found');
  });

  it('runs a grammY long-polling echo bot unchanged but for the API root', async () => {
    await drain();
    const echo = new GrammyBot(bot.token, { client: { apiRoot } });
    echo.on('message:text', (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
    const started = new Promise<void>((resolve) => {
      void echo.start({ timeout: 1, onStart: () => resolve() });
    });
    try {
      await started;
      await say('ping from alice');
      const reply = await until(async () => {
        const page = await request(ctx.app.getHttpServer())
          .get(`/api/v1/bots/client/chats/${chatUuid}/messages`)
          .set('Authorization', `Bearer ${alice}`)
          .expect(200);
        return (page.body.data.items as Array<{ text: string }>).find((m) => m.text === 'echo: ping from alice');
      });
      expect(reply).toBeDefined();
    } finally {
      await echo.stop();
    }
  });
});
