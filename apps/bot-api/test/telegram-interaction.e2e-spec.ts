import request from 'supertest';
import { Bot as GrammyBot, InlineKeyboard } from 'grammy';
import { ApprovedBot, BotTestContext, createApprovedBot, ensureUsers, startBotApp } from './app-context';
import { listenForFrameworks, tg, until, whilePolling } from './telegram-support';

describe('Telegram face: groups, buttons, chat methods, commands, edits', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let apiRoot: string;
  let groupUuid: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { name: 'Menu Bot', username: 'menu_tg_bot' });
    await ensureUsers(ctx, 'bob');
    const group = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${await ctx.jwt('alice', 'Alice')}`)
      .send({ type: 'group', title: 'Team', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    groupUuid = group.body.data.id;
  });
  afterAll(() => ctx.close());

  async function client(user: string) {
    const jwt = await ctx.jwt(user, user === 'alice' ? 'Alice' : 'Bob');
    const server = ctx.app.getHttpServer();
    return {
      say: (text: string) =>
        request(server)
          .post(`/api/v1/bots/client/chats/${groupUuid}/messages`)
          .set('Authorization', `Bearer ${jwt}`)
          .send({ text })
          .expect(201),
      messages: async () =>
        (
          await request(server)
            .get(`/api/v1/bots/client/chats/${groupUuid}/messages`)
            .set('Authorization', `Bearer ${jwt}`)
            .expect(200)
        ).body.data.items as Array<{ message_id: number; text: string; reply_markup?: unknown }>,
      click: (messageId: number, data: string) =>
        request(server)
          .post('/api/v1/bots/client/callback-queries')
          .set('Authorization', `Bearer ${jwt}`)
          .send({ chat_id: groupUuid, message_id: messageId, data })
          .expect(201),
      answer: async (id: string) =>
        (
          await request(server)
            .get(`/api/v1/bots/client/callback-queries/${id}`)
            .set('Authorization', `Bearer ${jwt}`)
            .expect(200)
        ).body.data,
    };
  }

  let groupChatId: number;
  let aliceId: number;

  it('answers /start in a group with privacy on; a button click reaches the callback handler and its answer reaches the client', async () => {
    const seen: string[] = [];
    const menu = new GrammyBot(bot.token, { client: { apiRoot } });
    menu.command('start', async (ctx) => {
      groupChatId = ctx.chat.id;
      aliceId = ctx.from!.id;
      await ctx.reply('Welcome', { reply_markup: new InlineKeyboard().text('Press', 'pressed') });
    });
    menu.callbackQuery('pressed', (ctx) => ctx.answerCallbackQuery({ text: `Pressed by ${ctx.from.first_name}` }));
    menu.on('message:text', (ctx) => {
      seen.push(ctx.message.text);
    });
    await whilePolling(menu, async () => {
      const alice = await client('alice');
      const bob = await client('bob');
      await alice.say('just chatting, no bot here');
      await alice.say('/start');
      const welcome = await until(async () => (await bob.messages()).find((m) => m.text === 'Welcome'));
      expect(welcome.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Press', callback_data: 'pressed' }]] });
      expect(groupChatId).toBeLessThan(0);
      const clicked = await bob.click(welcome.message_id, 'pressed');
      const answer = await until(async () => {
        const state = await bob.answer(clicked.body.data.id);
        return state.status === 'answered' ? state.answer : undefined;
      });
      expect(answer).toMatchObject({ text: 'Pressed by Bob', show_alert: false });
      expect(seen).not.toContain('just chatting, no bot here');
    });
  });

  it("grammY's editMessageText after a button press removes the inline keyboard (Telegram's rule), so the button cannot be pressed again", async () => {
    const order = new GrammyBot(bot.token, { client: { apiRoot } });
    order.command('order', (ctx) =>
      ctx.reply('Coffee or tea?', { reply_markup: new InlineKeyboard().text('Coffee', 'coffee').text('Tea', 'tea') }),
    );
    order.callbackQuery(['coffee', 'tea'], async (ctx) => {
      await ctx.answerCallbackQuery();
      await ctx.editMessageText(`You chose ${ctx.callbackQuery.data}`);
    });
    await whilePolling(order, async () => {
      const alice = await client('alice');
      const bob = await client('bob');
      await alice.say('/order');
      const question = await until(async () => (await bob.messages()).find((m) => m.text === 'Coffee or tea?'));
      expect(question.reply_markup).toBeDefined();
      await bob.click(question.message_id, 'tea');
      const chosen = await until(async () =>
        (await bob.messages()).find((m) => m.message_id === question.message_id && m.text === 'You chose tea'),
      );
      expect(chosen.reply_markup).toBeUndefined();
      const again = await request(ctx.app.getHttpServer())
        .post('/api/v1/bots/client/callback-queries')
        .set('Authorization', `Bearer ${await ctx.jwt('bob', 'Bob')}`)
        .send({ chat_id: groupUuid, message_id: question.message_id, data: 'coffee' });
      expect(again.status).toBe(400);
    });
  });

  it('reads and governs the group through integer ids', async () => {
    const chat = await tg(ctx, bot.token, 'getChat', { chat_id: groupChatId }).expect(200);
    expect(chat.body.result).toMatchObject({ id: groupChatId, type: 'group', title: 'Team' });
    const count = await tg(ctx, bot.token, 'getChatMemberCount', { chat_id: groupChatId }).expect(200);
    expect(count.body.result).toBe(3);
    const admins = await tg(ctx, bot.token, 'getChatAdministrators', { chat_id: groupChatId }).expect(200);
    expect(admins.body.result).toEqual([
      { status: 'creator', user: { id: aliceId, is_bot: false, first_name: 'Alice' }, is_anonymous: false },
    ]);
    const member = await tg(ctx, bot.token, 'getChatMember', { chat_id: groupChatId, user_id: aliceId }).expect(200);
    expect(member.body.result.status).toBe('creator');
    const rename = await tg(ctx, bot.token, 'setChatTitle', { chat_id: groupChatId, title: 'Renamed' });
    // The bot is a plain member: the native rank rule refuses, in Telegram's words.
    expect(rename.status).toBe(403);
    expect(rename.body.description).toMatch(/^Forbidden: /);
  });

  it('sets, reads and deletes commands and the description', async () => {
    const commands = [{ command: 'start', description: 'Start here' }];
    await tg(ctx, bot.token, 'setMyCommands', { commands, scope: { type: 'chat', chat_id: groupChatId } }).expect(200);
    const scoped = await tg(ctx, bot.token, 'getMyCommands', {
      scope: JSON.stringify({ type: 'chat', chat_id: groupChatId }),
    });
    expect(scoped.body).toEqual({ ok: true, result: commands });
    expect((await tg(ctx, bot.token, 'getMyCommands', {}).expect(200)).body.result).toEqual([]);
    await tg(ctx, bot.token, 'deleteMyCommands', { scope: { type: 'chat', chat_id: groupChatId } }).expect(200);
    expect(
      (await tg(ctx, bot.token, 'getMyCommands', { scope: { type: 'chat', chat_id: groupChatId } })).body.result,
    ).toEqual([]);
    await tg(ctx, bot.token, 'setMyDescription', { description: 'Menus for teams' }).expect(200);
    expect((await tg(ctx, bot.token, 'getMyDescription').expect(200)).body.result).toEqual({
      description: 'Menus for teams',
    });
  });

  it('edits, forwards, copies and deletes its own messages', async () => {
    const sent = await tg(ctx, bot.token, 'sendMessage', { chat_id: groupChatId, text: 'draft' }).expect(200);
    const messageId = sent.body.result.message_id;
    const edited = await tg(ctx, bot.token, 'editMessageText', {
      chat_id: groupChatId,
      message_id: messageId,
      text: 'final',
    }).expect(200);
    expect(edited.body.result).toMatchObject({ message_id: messageId, text: 'final', edit_date: expect.any(Number) });
    const buttons = await tg(ctx, bot.token, 'editMessageReplyMarkup', {
      chat_id: groupChatId,
      message_id: messageId,
      reply_markup: { inline_keyboard: [[{ text: 'Go', url: 'https://example.com' }]] },
    }).expect(200);
    expect(buttons.body.result.reply_markup).toEqual({
      inline_keyboard: [[{ text: 'Go', url: 'https://example.com' }]],
    });
    const forwarded = await tg(ctx, bot.token, 'forwardMessage', {
      chat_id: groupChatId,
      from_chat_id: groupChatId,
      message_id: messageId,
    }).expect(200);
    expect(forwarded.body.result).toMatchObject({ text: 'final', forward_date: expect.any(Number) });
    const copied = await tg(ctx, bot.token, 'copyMessage', {
      chat_id: groupChatId,
      from_chat_id: groupChatId,
      message_id: messageId,
    }).expect(200);
    expect(copied.body.result).toEqual({ message_id: expect.any(Number) });
    await tg(ctx, bot.token, 'deleteMessage', { chat_id: groupChatId, message_id: messageId }).expect(200);
    const gone = await tg(ctx, bot.token, 'editMessageText', {
      chat_id: groupChatId,
      message_id: messageId,
      text: 'again',
    });
    expect(gone.status).toBe(400);
    expect(gone.body.description).toMatch(/^Bad Request: message/);
  });

  it("runs grammY's inline query handler: the asking user reads its article results", async () => {
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/my/${bot.botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-1')}`)
      .send({ supports_inline_queries: true })
      .expect(200);
    const search = new GrammyBot(bot.token, { client: { apiRoot } });
    search.on('inline_query', (c) =>
      c.answerInlineQuery(
        [
          {
            type: 'article',
            id: 'one',
            title: `Result for ${c.inlineQuery.query}`,
            input_message_content: { message_text: 'picked' },
          },
        ],
        { cache_time: 0, is_personal: true },
      ),
    );
    await whilePolling(search, async () => {
      const bobJwt = await ctx.jwt('bob', 'Bob');
      const asked = await request(ctx.app.getHttpServer())
        .post('/api/v1/bots/client/inline-queries')
        .set('Authorization', `Bearer ${bobJwt}`)
        .send({ bot_username: 'menu_tg_bot', query: 'tea' })
        .expect(201);
      const read = await until(async () => {
        const res = await request(ctx.app.getHttpServer())
          .get(`/api/v1/bots/client/inline-queries/${asked.body.data.id}`)
          .set('Authorization', `Bearer ${bobJwt}`)
          .expect(200);
        return res.body.data.status === 'answered' ? res.body.data : undefined;
      });
      expect(JSON.stringify(read)).toContain('Result for tea');
    }, ['inline_query']);
  });
});
