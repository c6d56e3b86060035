import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

describe('group privacy filtering (spec 6.4)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let groupId: string;
  let offset = 0;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'Priv_Bot' });
    alice = await ctx.jwt('alice', 'Alice');
    await ensureUsers(ctx, 'bob');
    const group = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${alice}`)
      .send({ type: 'group', title: 'Privacy', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    groupId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  async function post(body: object): Promise<number> {
    const res = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send(body)
      .expect(201);
    return res.body.data.message_id;
  }

  /** Texts of the group messages the bot received since the last call. */
  async function delivered(): Promise<string[]> {
    const res = await callBot(ctx, bot.token, 'getUpdates', { offset }).expect(200);
    const updates = res.body.data as Array<{ update_seq: number; type: string; message: { text: string } }>;
    if (updates.length > 0) offset = updates[updates.length - 1].update_seq + 1;
    return updates.filter((u) => u.type === 'message').map((u) => u.message.text);
  }

  it('does not deliver an ordinary group message', async () => {
    await post({ text: 'lunch at noon?' });
    expect(await delivered()).toEqual([]);
  });

  it('delivers a message whose first token starts with a slash, not a slash later in the text', async () => {
    await post({ text: '/price apples' });
    await post({ text: 'try /price' });
    expect(await delivered()).toEqual(['/price apples']);
  });

  it('delivers text containing the bot @username in any case, not a longer handle', async () => {
    await post({ text: 'hey @priv_bot what is new' });
    await post({ text: 'ask @PRIV_BOT' });
    await post({ text: 'ask @priv_bot_fan' });
    expect(await delivered()).toEqual(['hey @priv_bot what is new', 'ask @PRIV_BOT']);
  });

  it('delivers a reply to a message of the bot, not a reply to a person', async () => {
    const fromBot = await callBot(ctx, bot.token, 'sendMessage', { chat_id: groupId, text: 'I am here' }).expect(201);
    const fromAlice = await post({ text: 'alice speaking' });
    await post({ text: 'answering the bot', reply_to_message_id: fromBot.body.data.message_id });
    await post({ text: 'answering alice', reply_to_message_id: fromAlice });
    expect(await delivered()).toEqual(['answering the bot']);
  });

  it('delivers a message whose mentions name the bot by user id or username, not someone else', async () => {
    await post({ text: 'by id', mentions: [bot.systemUserId] });
    await post({ text: 'by name', mentions: ['priv_bot'] });
    await post({ text: 'someone else', mentions: ['bob'] });
    expect(await delivered()).toEqual(['by id', 'by name']);
  });

  it('applies the filter to edits: an edit that still passes no rule is not delivered', async () => {
    const hidden = await post({ text: 'quiet message' });
    const visible = await post({ text: '/visible' });
    await delivered();
    const server = ctx.app.getHttpServer();
    for (const [id, text] of [
      [hidden, 'still quiet'],
      [visible, '/visible again'],
    ] as const) {
      await request(server)
        .patch(`/api/v1/bots/client/chats/${groupId}/messages/${id}`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ text })
        .expect(200);
    }
    const res = await callBot(ctx, bot.token, 'getUpdates', { offset }).expect(200);
    expect(
      res.body.data.map((u: { type: string; message: { message_id: number } }) => [u.type, u.message.message_id]),
    ).toEqual([['edited_message', visible]]);
  });
});
