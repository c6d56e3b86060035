import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';

/** A send is written only by an active member, replying only to a live message of the same chat. */
describe('sendMessage membership and reply rules', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let stranger: ApprovedBot;
  let alice: string;
  let chatId: string;
  let strangersChat: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'member_bot' });
    stranger = await createApprovedBot(ctx, 'dev-2', { username: 'stranger_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    const open = async (botId: string) =>
      (
        await request(ctx.app.getHttpServer())
          .post('/api/v1/bots/client/chats/private')
          .set('Authorization', `Bearer ${alice}`)
          .send({ bot_id: botId })
          .expect(201)
      ).body.data.id as string;
    chatId = await open(bot.botId);
    strangersChat = await open(stranger.botId);
  });
  afterAll(() => ctx.close());

  const messagesIn = async (chat: string): Promise<number> => {
    const rows: Array<{ n: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT count(*) AS n FROM messages WHERE chat_id = $1`, [chat]);
    return Number(rows[0].n);
  };

  const expectNotFound = (res: request.Response) => {
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
  };

  it('answers 404 and writes nothing for a chat the bot is not in, an unknown chat and a malformed id', async () => {
    const before = await messagesIn(strangersChat);
    expectNotFound(await callBot(ctx, bot.token, 'sendMessage', { chat_id: strangersChat, text: 'intruder' }));
    expectNotFound(
      await callBot(ctx, bot.token, 'sendMessage', { chat_id: '00000000-0000-4000-8000-000000000000', text: 'x' }),
    );
    expectNotFound(await callBot(ctx, bot.token, 'sendMessage', { chat_id: 'not-a-chat', text: 'x' }));
    expect(await messagesIn(strangersChat)).toBe(before);
  });

  it('replies to a live message of the same chat, and answers 404 for one of another chat or a deleted one', async () => {
    const first = await callBot(ctx, bot.token, 'sendMessage', { chat_id: chatId, text: 'first' }).expect(201);
    const reply = await callBot(ctx, bot.token, 'sendMessage', {
      chat_id: chatId,
      text: 'second',
      reply_to_message_id: first.body.data.message_id,
    }).expect(201);
    expect(reply.body.data).toMatchObject({
      reply_to_message_id: first.body.data.message_id,
      from: { id: bot.systemUserId, is_bot: true, username: 'member_bot' },
      chat: { id: chatId, type: 'private' },
    });

    const elsewhere = await callBot(ctx, stranger.token, 'sendMessage', { chat_id: strangersChat, text: 'x' });
    const before = await messagesIn(chatId);
    expectNotFound(
      await callBot(ctx, bot.token, 'sendMessage', {
        chat_id: chatId,
        text: 'cross-chat reply',
        reply_to_message_id: elsewhere.body.data.message_id,
      }),
    );
    await callBot(ctx, bot.token, 'deleteMessage', { chat_id: chatId, message_id: first.body.data.message_id }).expect(
      200,
    );
    expectNotFound(
      await callBot(ctx, bot.token, 'sendMessage', {
        chat_id: chatId,
        text: 'reply to a deleted one',
        reply_to_message_id: first.body.data.message_id,
      }),
    );
    expect(await messagesIn(chatId)).toBe(before);
  });

  it('writes every one of many parallel sends exactly once, each with its own id', async () => {
    const before = await messagesIn(chatId);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => callBot(ctx, bot.token, 'sendMessage', { chat_id: chatId, text: `p${i}` })),
    );
    expect(results.map((res) => res.status)).toEqual(Array(20).fill(201));
    const ids = new Set(results.map((res) => res.body.data.message_id));
    expect(ids.size).toBe(20);
    expect(await messagesIn(chatId)).toBe(before + 20);
  });
});
