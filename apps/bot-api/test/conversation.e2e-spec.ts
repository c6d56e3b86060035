import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

describe('conversation loop: user → bot → user', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'echo_bot' });
    alice = await ctx.jwt('alice', 'Alice');
  });
  afterAll(() => ctx.close());

  const server = () => ctx.app.getHttpServer();

  it('delivers a private message to getUpdates, takes the reply and shows it in the user message list', async () => {
    const opened = await request(server())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    const chatId = opened.body.data.id as string;
    expect(opened.body.data).toMatchObject({ type: 'private', bot_id: bot.botId, bot_user_id: bot.systemUserId });

    const again = await request(server())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(200);
    expect(again.body.data.id).toBe(chatId);

    const posted = await request(server())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'hello bot' })
      .expect(201);
    const userMessageId = posted.body.data.message_id as number;

    const polled = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(polled.body.success).toBe(true);
    expect(polled.body.data).toHaveLength(1);
    const update = polled.body.data[0];
    expect(update).toMatchObject({
      type: 'message',
      bot_id: bot.botId,
      update_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      update_seq: expect.any(Number),
      message: {
        message_id: userMessageId,
        from: { id: 'alice', username: null, is_bot: false },
        chat: { id: chatId, type: 'private', title: null },
        text: 'hello bot',
        date: expect.any(Number),
      },
    });

    const reply = await callBot(ctx, bot.token, 'sendMessage', {
      chat_id: chatId,
      text: 'hello Alice',
      reply_to_message_id: userMessageId,
    }).expect(201);
    expect(reply.body.data).toMatchObject({
      message_id: expect.any(Number),
      chat: { id: chatId, type: 'private' },
      from: { id: bot.systemUserId, is_bot: true },
      text: 'hello Alice',
      date: expect.any(Number),
      reply_to_message_id: userMessageId,
    });
    expect(reply.headers['x-botratelimit-remaining']).toBeDefined();

    const list = await request(server())
      .get(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    expect(list.body.data.total).toBe(2);
    expect(list.body.data.items.map((m: { text: string }) => m.text)).toEqual(['hello Alice', 'hello bot']);
    expect(list.body.data.items[0].from).toMatchObject({ id: bot.systemUserId, is_bot: true, username: 'echo_bot' });

    const confirmed = await callBot(ctx, bot.token, 'getUpdates', { offset: update.update_seq + 1 }).expect(200);
    expect(confirmed.body.data).toEqual([]);
  });

  it('answers a command in a group: the bot sees the command, replies, and every member sees the reply', async () => {
    await ensureUsers(ctx, 'bob');
    const group = await request(server())
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${alice}`)
      .send({ type: 'group', title: 'Shop', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    const groupId = group.body.data.id as string;
    await request(server())
      .post(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'good morning' })
      .expect(201);
    const command = await request(server())
      .post(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: '/price tea' })
      .expect(201);

    const polled = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(polled.body.data.map((u: { message: { text: string } }) => u.message.text)).toEqual(['/price tea']);
    const last = polled.body.data.at(-1);
    await callBot(ctx, bot.token, 'sendMessage', {
      chat_id: groupId,
      text: 'Tea costs 3',
      reply_to_message_id: command.body.data.message_id,
    }).expect(201);
    await callBot(ctx, bot.token, 'getUpdates', { offset: last.update_seq + 1 }).expect(200);

    const seenByBob = await request(server())
      .get(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt('bob', 'Bob')}`)
      .expect(200);
    expect(seenByBob.body.data.items[0]).toMatchObject({
      text: 'Tea costs 3',
      from: { id: bot.systemUserId, is_bot: true },
      reply_to_message_id: command.body.data.message_id,
    });
  });

  it('answers 404 NOT_FOUND when the bot sends to a chat it is not a member of', async () => {
    const res = await callBot(ctx, bot.token, 'sendMessage', {
      chat_id: '00000000-0000-4000-8000-000000000000',
      text: 'x',
    }).expect(404);
    expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
  });
});
