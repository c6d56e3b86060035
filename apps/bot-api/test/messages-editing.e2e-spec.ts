import request from 'supertest';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  ensureUsers,
  insertFile,
  startBotApp,
} from './app-context';

describe('editing, deleting, forwarding and copying messages', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let bob: string;
  let privateId: string;
  let groupId: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'editor_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    bob = await ctx.jwt('bob', 'Bob');
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
      .send({ type: 'group', title: 'Forwarding', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    groupId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  const as = (jwt: string) => ({
    post: (path: string, body: object = {}) =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt}`)
        .send(body),
    patch: (path: string, body: object) =>
      request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt}`)
        .send(body),
    delete: (path: string) =>
      request(ctx.app.getHttpServer()).delete(`/api/v1/bots/client${path}`).set('Authorization', `Bearer ${jwt}`),
    get: (path: string) =>
      request(ctx.app.getHttpServer()).get(`/api/v1/bots/client${path}`).set('Authorization', `Bearer ${jwt}`),
  });

  async function botSays(text: string, chatId = privateId): Promise<number> {
    const res = await callBot(ctx, bot.token, 'sendMessage', { chat_id: chatId, text }).expect(201);
    return res.body.data.message_id;
  }

  it("editMessage changes the bot's own text message and marks metadata.isEdited", async () => {
    const id = await botSays('first draft');
    const res = await callBot(ctx, bot.token, 'editMessage', {
      chat_id: privateId,
      message_id: id,
      text: 'second draft',
    }).expect(200);
    expect(res.body.data).toMatchObject({ message_id: id, text: 'second draft', metadata: { isEdited: true } });
    const list = await as(alice).get(`/chats/${privateId}/messages`).expect(200);
    expect(list.body.data.items.find((m: { message_id: number }) => m.message_id === id)).toMatchObject({
      text: 'second draft',
      metadata: { isEdited: true },
    });
  });

  it('editMessage and deleteMessage of a message the bot did not send answer 403 FORBIDDEN', async () => {
    const posted = await as(alice).post(`/chats/${privateId}/messages`, { text: 'mine' }).expect(201);
    const id = posted.body.data.message_id;
    for (const [method, body] of [
      ['editMessage', { message_id: id, text: 'hacked' }],
      ['deleteMessage', { message_id: id }],
      ['editMessageReplyMarkup', { message_id: id, reply_markup: null }],
    ] as const) {
      const res = await callBot(ctx, bot.token, method, body).expect(403);
      expect(res.body).toEqual({ success: false, code: 'FORBIDDEN', message: expect.any(String) });
    }
  });

  it('editMessage answers 400 for a media message and 404 for an unknown or foreign message', async () => {
    const file = await insertFile(ctx, { botId: bot.botId });
    const photo = await callBot(ctx, bot.token, 'sendPhoto', { chat_id: privateId, file_id: file }).expect(201);
    const media = await callBot(ctx, bot.token, 'editMessage', {
      message_id: photo.body.data.message_id,
      text: 'x',
    }).expect(400);
    expect(media.body.code).toBe('VALIDATION');
    const unknown = await callBot(ctx, bot.token, 'editMessage', { message_id: 99999999, text: 'x' }).expect(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const id = await botSays('in the private chat');
    const wrongChat = await callBot(ctx, bot.token, 'editMessage', {
      chat_id: groupId,
      message_id: id,
      text: 'x',
    }).expect(404);
    expect(wrongChat.body.code).toBe('NOT_FOUND');

    const stranger = await createApprovedBot(ctx, 'dev-2', { username: 'stranger_bot' });
    const notVisible = await callBot(ctx, stranger.token, 'deleteMessage', { message_id: id }).expect(404);
    expect(notVisible.body.code).toBe('NOT_FOUND');
  });

  it("deleteMessage removes the bot's own message from the chat", async () => {
    const id = await botSays('to be deleted');
    const res = await callBot(ctx, bot.token, 'deleteMessage', { chat_id: privateId, message_id: id }).expect(200);
    expect(res.body).toEqual({ success: true, data: true });
    const list = await as(alice).get(`/chats/${privateId}/messages?pageSize=100`).expect(200);
    expect(list.body.data.items.map((m: { message_id: number }) => m.message_id)).not.toContain(id);
    await callBot(ctx, bot.token, 'deleteMessage', { message_id: id }).expect(404);
  });

  it('editMessageReplyMarkup replaces the buttons, null clears them, text stays', async () => {
    const id = await botSays('choose');
    const markup = {
      inline_keyboard: [[{ text: 'A', callback_data: 'a' }], [{ text: 'Docs', url: 'https://example.com' }]],
    };
    const set = await callBot(ctx, bot.token, 'editMessageReplyMarkup', {
      message_id: id,
      reply_markup: markup,
    }).expect(200);
    expect(set.body.data).toMatchObject({ text: 'choose', reply_markup: markup });
    const cleared = await callBot(ctx, bot.token, 'editMessageReplyMarkup', {
      message_id: id,
      reply_markup: null,
    }).expect(200);
    expect(cleared.body.data.reply_markup).toBeUndefined();
    expect(cleared.body.data.text).toBe('choose');
    expect(cleared.body.data.metadata.isEdited).toBeUndefined();
  });

  it('an edit without reply_markup keeps the buttons, null removes them, a keyboard replaces them (editMessage, editMessageCaption, editMessageMedia, stopPoll)', async () => {
    const markup = { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] };
    const other = { inline_keyboard: [[{ text: 'B', callback_data: 'b' }]] };
    const photo = await insertFile(ctx, { botId: bot.botId });
    const sent = async (method: string, body: object) =>
      (await callBot(ctx, bot.token, method, { chat_id: privateId, ...body, reply_markup: markup }).expect(201)).body
        .data.message_id as number;
    const text = await sent('sendMessage', { text: 'choose' });
    const captioned = await sent('sendPhoto', { file_id: photo, caption: 'choose' });
    const media = await sent('sendPhoto', { file_id: photo });
    const edits: Array<[string, (reply: object) => object]> = [
      ['editMessage', (reply) => ({ message_id: text, text: `choose ${Math.random()}`, ...reply })],
      ['editMessageCaption', (reply) => ({ message_id: captioned, caption: `choose ${Math.random()}`, ...reply })],
      ['editMessageMedia', (reply) => ({ message_id: media, media: { type: 'photo', file_id: photo }, ...reply })],
    ];
    for (const [method, body] of edits) {
      const kept = await callBot(ctx, bot.token, method, body({})).expect(200);
      expect(kept.body.data.reply_markup).toEqual(markup);
      const replaced = await callBot(ctx, bot.token, method, body({ reply_markup: other })).expect(200);
      expect(replaced.body.data.reply_markup).toEqual(other);
      const removed = await callBot(ctx, bot.token, method, body({ reply_markup: null })).expect(200);
      expect(removed.body.data.reply_markup).toBeUndefined();
    }
    const polls = await Promise.all([0, 1].map(() => sent('sendPoll', { question: 'Lunch?', options: ['Yes', 'No'] })));
    const keptPoll = await callBot(ctx, bot.token, 'stopPoll', { message_id: polls[0] }).expect(200);
    expect(keptPoll.body.data.reply_markup).toEqual(markup);
    const clearedPoll = await callBot(ctx, bot.token, 'stopPoll', { message_id: polls[1], reply_markup: null }).expect(
      200,
    );
    expect(clearedPoll.body.data.reply_markup).toBeUndefined();
    const list = await as(alice).get(`/chats/${privateId}/messages?pageSize=100`).expect(200);
    const shown = (id: number) => list.body.data.items.find((m: { message_id: number }) => m.message_id === id);
    expect([text, captioned, media, polls[1]].map((id) => shown(id).reply_markup)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(shown(polls[0]).reply_markup).toEqual(markup);
  });

  it('forwardMessage copies with a forwarded-from mark, copyMessage without it', async () => {
    const original = await as(alice).post(`/chats/${privateId}/messages`, { text: 'worth sharing' }).expect(201);
    const id = original.body.data.message_id;
    const forwarded = await callBot(ctx, bot.token, 'forwardMessage', {
      chat_id: groupId,
      from_chat_id: privateId,
      message_id: id,
    }).expect(201);
    expect(forwarded.body.data).toMatchObject({
      chat: { id: groupId, type: 'group' },
      from: { id: bot.systemUserId, is_bot: true },
      text: 'worth sharing',
      forward_from: { chat_id: privateId, message_id: id, from_user_id: 'alice', date: original.body.data.date },
    });
    const copied = await callBot(ctx, bot.token, 'copyMessage', {
      chat_id: groupId,
      from_chat_id: privateId,
      message_id: id,
    }).expect(201);
    expect(copied.body.data.text).toBe('worth sharing');
    expect(copied.body.data.forward_from).toBeUndefined();
    expect(copied.body.data.message_id).not.toBe(forwarded.body.data.message_id);
    const seen = await as(bob).get(`/chats/${groupId}/messages`).expect(200);
    expect(seen.body.data.items.map((m: { text: string }) => m.text)).toEqual(['worth sharing', 'worth sharing']);
  });

  it('forward and copy need the bot to be an active member of both chats', async () => {
    const id = await botSays('private only');
    await as(alice).delete(`/chats/${groupId}/members`).send({ user_id: bot.systemUserId }).expect(200);
    for (const method of ['forwardMessage', 'copyMessage']) {
      const res = await callBot(ctx, bot.token, method, {
        chat_id: groupId,
        from_chat_id: privateId,
        message_id: id,
      }).expect(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('client routes: only the sender edits, a group administrator may delete, receipts are for others', async () => {
    const posted = await as(alice).post(`/chats/${groupId}/messages`, { text: 'alice here' }).expect(201);
    const id = posted.body.data.message_id;
    const edit = await as(bob).patch(`/chats/${groupId}/messages/${id}`, { text: 'bob was here' }).expect(403);
    expect(edit.body.code).toBe('FORBIDDEN');
    const bobs = await as(bob).post(`/chats/${groupId}/messages`, { text: 'bob here' }).expect(201);
    const del = await as(bob).delete(`/chats/${groupId}/messages/${id}`).expect(403);
    expect(del.body.code).toBe('FORBIDDEN');
    await as(alice).delete(`/chats/${groupId}/messages/${bobs.body.data.message_id}`).expect(200);
    const own = await as(alice).post(`/chats/${groupId}/messages/${id}/read`).expect(400);
    expect(own.body.code).toBe('VALIDATION');
    const missing = await as(alice).patch(`/chats/${groupId}/messages/abc`, { text: 'x' }).expect(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('client post: needs text, file_id or location; reply target in the same chat; caption at most 1024', async () => {
    const empty = await as(alice).post(`/chats/${privateId}/messages`, {}).expect(400);
    expect(empty.body.code).toBe('VALIDATION');
    const other = await as(alice).post(`/chats/${groupId}/messages`, { text: 'elsewhere' }).expect(201);
    const reply = await as(alice)
      .post(`/chats/${privateId}/messages`, { text: 'x', reply_to_message_id: other.body.data.message_id })
      .expect(404);
    expect(reply.body.code).toBe('NOT_FOUND');
    const file = await insertFile(ctx, { userId: 'alice' });
    await as(alice)
      .post(`/chats/${privateId}/messages`, { file_id: file, text: 'x'.repeat(1025) })
      .expect(400);
    const notMine = await insertFile(ctx, { userId: 'bob' });
    const hidden = await as(alice).post(`/chats/${privateId}/messages`, { file_id: notMine }).expect(404);
    expect(hidden.body.code).toBe('NOT_FOUND');
    const outsider = await ctx.jwt('mallory', 'Mallory');
    const denied = await as(outsider).get(`/chats/${privateId}/messages`).expect(404);
    expect(denied.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
  });

  it('client list: pages a chat newest first, reporting total, page and pageSize like every other list', async () => {
    await as(alice).post(`/chats/${groupId}/messages`, { text: 'older' }).expect(201);
    await as(alice).post(`/chats/${groupId}/messages`, { text: 'newer' }).expect(201);
    const first = await as(alice).get(`/chats/${groupId}/messages?page=1&pageSize=1`).expect(200);
    expect(first.body.data).toMatchObject({ page: 1, pageSize: 1, items: [{ text: 'newer' }] });
    expect(first.body.data.total).toBeGreaterThanOrEqual(2);
    const second = await as(alice).get(`/chats/${groupId}/messages?page=2&pageSize=1`).expect(200);
    expect(second.body.data).toMatchObject({ page: 2, pageSize: 1, items: [{ text: 'older' }] });
  });
});
