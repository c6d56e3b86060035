import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

describe('forwardMessage and copyMessage duplicate only messages the bot could read', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let privateId: string;
  let groupId: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'quiet_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    await ensureUsers(ctx, 'bob');
    const server = ctx.app.getHttpServer();
    const chat = await request(server)
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    privateId = chat.body.data.id;
    const group = await request(server)
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${alice}`)
      .send({ type: 'group', title: 'Privacy mode', member_ids: ['bob'] })
      .expect(201);
    groupId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  async function aliceSays(chatId: string, text: string): Promise<number> {
    const res = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
    return res.body.data.message_id;
  }

  function duplicate(method: string, messageId: number) {
    return callBot(ctx, bot.token, method, { chat_id: privateId, from_chat_id: groupId, message_id: messageId });
  }

  it('defect 3: a group message hidden by privacy mode, or posted before the bot joined, answers 404 like an unknown id', async () => {
    const beforeJoining = await aliceSays(groupId, '/price before the bot came');
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${groupId}/members`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ user_id: bot.systemUserId })
      .expect(200);
    const hidden = await aliceSays(groupId, 'the safe code is 1234');
    const unknown = await duplicate('copyMessage', 999_999_999).expect(404);
    for (const method of ['forwardMessage', 'copyMessage']) {
      for (const id of [hidden, beforeJoining]) {
        const res = await duplicate(method, id).expect(404);
        expect(res.body).toEqual(unknown.body);
      }
    }
  });

  it('messages the bot received as Updates or sent itself can still be forwarded and copied', async () => {
    const command = await aliceSays(groupId, '/price apples');
    const mention = await aliceSays(groupId, 'ask @quiet_bot');
    const own = await callBot(ctx, bot.token, 'sendMessage', { chat_id: groupId, text: 'bot speaking' }).expect(201);
    for (const id of [command, mention, own.body.data.message_id]) {
      await duplicate('forwardMessage', id).expect(201);
      await duplicate('copyMessage', id).expect(201);
    }
    const fromPrivate = await aliceSays(privateId, 'just between us');
    await callBot(ctx, bot.token, 'copyMessage', {
      chat_id: groupId,
      from_chat_id: privateId,
      message_id: fromPrivate,
    }).expect(201);
  });
});
