import request from 'supertest';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  clientAs,
  createApprovedBot,
  insertFile,
  startBotApp,
  UpdateReader,
} from './app-context';

/**
 * The methods real bots call beyond sending, on the face at bot-api's root (`/bot<token>/<method>`),
 * each against its native operation and the native rules; another bot reaches none of it.
 */
describe('Telegram face at the root: caption and media edits, polls, bulk deletion, join requests, leaving, names', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let owner: ReturnType<typeof clientAs>;
  let groupUuid: string;
  let groupId: number;
  let updates: UpdateReader;

  /** A call at the root, as Telegram's server is called. */
  const face = (token: string, method: string, body: object = {}) =>
    request(ctx.app.getHttpServer()).post(`/bot${token}/${method}`).send(body);

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { name: 'Desk Bot', username: 'desk_tg_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { name: 'Other Bot', username: 'other_desk_bot' });
    owner = clientAs(ctx, await ctx.jwt('alice', 'Alice'));
    groupUuid = (
      await owner
        .post('/chats', { type: 'group', title: 'Desk', member_ids: [bot.systemUserId, other.systemUserId] })
        .expect(201)
    ).body.data.id;
    await owner.patch(`/chats/${groupUuid}/members/${bot.systemUserId}`, { role: 'administrator' }).expect(200);
    await owner.post(`/chats/${groupUuid}/messages`, { text: `hi @desk_tg_bot` }).expect(201);
    const polled = await face(bot.token, 'getUpdates', {
      allowed_updates: ['message', 'chat_join_request', 'chat_member'],
    }).expect(200);
    const hello = polled.body.result.find((u: { message?: { text: string } }) => u.message?.text === 'hi @desk_tg_bot');
    groupId = hello.message.chat.id;
    // Member Updates are delivered only when asked for, as chat_member is in Telegram.
    await face(other.token, 'getUpdates', { allowed_updates: ['message', 'my_chat_member'] }).expect(200);
    updates = new UpdateReader(ctx);
    await updates.drain(bot);
    await updates.drain(other);
  });
  afterAll(() => ctx.close());

  it('answers at the root and under /telegram alike, both counted against the per-bot route limit, with Telegram errors', async () => {
    const root = await request(ctx.app.getHttpServer()).get(`/bot${bot.token}/getMe`).expect(200);
    const prefixed = await request(ctx.app.getHttpServer()).get(`/telegram/bot${bot.token}/getMe`).expect(200);
    expect(root.body).toEqual(prefixed.body);
    // One budget for both paths: the second call has one request less left than the first.
    expect(root.headers['x-ratelimit-limit']).toBe(String(3000));
    expect(Number(prefixed.headers['x-ratelimit-remaining'])).toBe(Number(root.headers['x-ratelimit-remaining']) - 1);
    expect((await face(`sbot_${'x'.repeat(43)}`, 'getMe').expect(401)).body).toEqual({
      ok: false,
      error_code: 401,
      description: 'Unauthorized',
    });
    expect((await face(bot.token, 'sendGift').expect(404)).body.description).toBe('Not Found: method not found');
  });

  it('edits the caption of its photo with MarkdownV2, refuses a text message and another bot', async () => {
    const photo = await insertFile(ctx, { botId: bot.botId, width: 3, height: 2 });
    const sent = await face(bot.token, 'sendPhoto', { chat_id: groupId, photo, caption: 'draft' }).expect(200);
    const messageId = sent.body.result.message_id;
    const edited = await face(bot.token, 'editMessageCaption', {
      chat_id: groupId,
      message_id: messageId,
      caption: '*Final* cut',
      parse_mode: 'MarkdownV2',
    }).expect(200);
    expect(edited.body.result).toMatchObject({
      caption: 'Final cut',
      caption_entities: [{ type: 'bold', offset: 0, length: 5 }],
      edit_date: expect.any(Number),
    });
    const foreign = await face(other.token, 'editMessageCaption', {
      chat_id: groupId,
      message_id: messageId,
      caption: 'mine',
    });
    expect(foreign.status).toBe(403);
    const text = await face(bot.token, 'sendMessage', { chat_id: groupId, text: 'words' }).expect(200);
    const notMedia = await face(bot.token, 'editMessageCaption', {
      chat_id: groupId,
      message_id: text.body.result.message_id,
      caption: 'x',
    });
    expect(notMedia.body).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: only media messages have a caption to edit',
    });
  });

  it('formats captions of media sends and of each album item, parse_mode matched case-insensitively', async () => {
    const doc = await insertFile(ctx, { botId: bot.botId, fileName: 'menu.pdf', mimeType: 'application/pdf' });
    const single = await face(bot.token, 'sendDocument', {
      chat_id: groupId,
      document: doc,
      caption: '<u>Menu</u>',
      parse_mode: 'html',
    }).expect(200);
    expect(single.body.result).toMatchObject({
      caption: 'Menu',
      caption_entities: [{ type: 'underline', offset: 0, length: 4 }],
    });
    const photos = [await insertFile(ctx, { botId: bot.botId }), await insertFile(ctx, { botId: bot.botId })];
    const album = await face(bot.token, 'sendMediaGroup', {
      chat_id: groupId,
      media: [
        { type: 'photo', media: photos[0], caption: '*one*', parse_mode: 'markdownv2' },
        {
          type: 'photo',
          media: photos[1],
          caption: 'two',
          caption_entities: [{ type: 'italic', offset: 0, length: 3 }],
        },
      ],
    }).expect(200);
    expect(album.body.result.map((m: { caption_entities: unknown }) => m.caption_entities)).toEqual([
      [{ type: 'bold', offset: 0, length: 3 }],
      [{ type: 'italic', offset: 0, length: 3 }],
    ]);
    const unknown = await face(bot.token, 'sendDocument', {
      chat_id: groupId,
      document: doc,
      caption: 'x',
      parse_mode: 'BBCode',
    });
    expect(unknown.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: unsupported parse_mode' });
  });

  it('replaces the file of its photo with editMessageMedia, with the new caption, and not with a file it may not use', async () => {
    const first = await insertFile(ctx, { botId: bot.botId, width: 3, height: 2 });
    const second = await insertFile(ctx, {
      botId: bot.botId,
      fileName: 'clip.mp4',
      mimeType: 'video/mp4',
      width: 8,
      height: 6,
      duration: 3,
    });
    const foreign = await insertFile(ctx, { botId: other.botId });
    const sent = await face(bot.token, 'sendPhoto', { chat_id: groupId, photo: first, caption: 'old' }).expect(200);
    const messageId = sent.body.result.message_id;
    const edited = await face(bot.token, 'editMessageMedia', {
      chat_id: groupId,
      message_id: messageId,
      media: JSON.stringify({ type: 'video', media: second, caption: '<i>new</i>', parse_mode: 'HTML' }),
    }).expect(200);
    expect(edited.body.result).toMatchObject({
      video: { file_id: second, width: 8, height: 6, duration: 3 },
      caption: 'new',
      caption_entities: [{ type: 'italic', offset: 0, length: 3 }],
    });
    expect(edited.body.result.photo).toBeUndefined();
    const refused = await face(bot.token, 'editMessageMedia', {
      chat_id: groupId,
      message_id: messageId,
      media: { type: 'photo', media: foreign },
    });
    expect(refused.status).toBe(400);
    const seen = (await owner.get(`/chats/${groupUuid}/messages`).expect(200)).body.data.items.find(
      (m: { message_id: number }) => m.message_id === messageId,
    );
    expect(seen).toMatchObject({ kind: 'video', caption: 'new', file: { file_id: second } });
  });

  it('stops its poll once: the Poll comes back closed, readers see it closed, a second stop is refused', async () => {
    const poll = await face(bot.token, 'sendPoll', {
      chat_id: groupId,
      question: 'Lunch?',
      options: ['Yes', 'No'],
    }).expect(200);
    const messageId = poll.body.result.message_id;
    expect((await face(other.token, 'stopPoll', { chat_id: groupId, message_id: messageId })).status).toBe(403);
    const stopped = await face(bot.token, 'stopPoll', { chat_id: groupId, message_id: messageId }).expect(200);
    expect(stopped.body.result).toMatchObject({
      question: 'Lunch?',
      is_closed: true,
      options: [{ text: 'Yes' }, { text: 'No' }],
    });
    const again = await face(bot.token, 'stopPoll', { chat_id: groupId, message_id: messageId }).expect(400);
    expect(again.body.description).toBe('Bad Request: the poll has already been closed');
    const seen = (await owner.get(`/chats/${groupUuid}/messages`).expect(200)).body.data.items.find(
      (m: { message_id: number }) => m.message_id === messageId,
    );
    expect(seen.poll.is_closed).toBe(true);
  });

  it('removes the inline keyboard on every edit that carries no reply_markup, as Telegram does, and replaces it on one that does', async () => {
    const keyboard = (data: string) => ({ inline_keyboard: [[{ text: 'Pick', callback_data: data }]] });
    const buttonsOf = async (messageId: number) =>
      (await owner.get(`/chats/${groupUuid}/messages`).expect(200)).body.data.items.find(
        (m: { message_id: number }) => m.message_id === messageId,
      ).reply_markup;
    const photo = await insertFile(ctx, { botId: bot.botId });
    const video = await insertFile(ctx, { botId: bot.botId, fileName: 'clip.mp4', mimeType: 'video/mp4' });
    const sends: Array<[string, object]> = [
      ['sendMessage', { text: 'menu' }],
      ['sendPhoto', { photo, caption: 'menu' }],
      ['sendPhoto', { photo }],
      ['sendPoll', { question: 'Menu?', options: ['A', 'B'] }],
    ];
    const [text, captioned, media, poll] = await Promise.all(
      sends.map(async ([method, body]) => {
        const sent = await face(bot.token, method, { chat_id: groupId, ...body, reply_markup: keyboard('a') }).expect(
          200,
        );
        expect(sent.body.result.reply_markup).toEqual(keyboard('a'));
        return sent.body.result.message_id as number;
      }),
    );
    const edits: Array<[string, number, object]> = [
      ['editMessageText', text, { text: 'chosen' }],
      ['editMessageCaption', captioned, { caption: 'chosen' }],
      ['editMessageMedia', media, { media: { type: 'video', media: video } }],
      ['stopPoll', poll, {}],
    ];
    for (const [method, messageId, body] of edits) {
      const edited = await face(bot.token, method, { chat_id: groupId, message_id: messageId, ...body }).expect(200);
      expect(edited.body.result.reply_markup).toBeUndefined();
      expect(await buttonsOf(messageId)).toBeUndefined();
    }
    const replaced = await face(bot.token, 'editMessageText', {
      chat_id: groupId,
      message_id: text,
      text: 'pick again',
      reply_markup: keyboard('b'),
    }).expect(200);
    expect(replaced.body.result.reply_markup).toEqual(keyboard('b'));
    expect(await buttonsOf(text)).toEqual(keyboard('b'));
  });

  it('deletes several of its messages at once, skipping unknown ids; one of another sender refuses all of them', async () => {
    const ids: number[] = [];
    for (const text of ['a', 'b'])
      ids.push((await face(bot.token, 'sendMessage', { chat_id: groupId, text }).expect(200)).body.result.message_id);
    const alices = (await owner.post(`/chats/${groupUuid}/messages`, { text: 'mine' }).expect(201)).body.data
      .message_id;
    const refused = await face(bot.token, 'deleteMessages', { chat_id: groupId, message_ids: [...ids, alices] }).expect(
      403,
    );
    expect(refused.body.description).toBe('Forbidden: only messages of this bot can be deleted');
    const live = async () =>
      (
        (await owner.get(`/chats/${groupUuid}/messages`).expect(200)).body.data.items as Array<{ message_id: number }>
      ).map((m) => m.message_id);
    expect(await live()).toEqual(expect.arrayContaining([...ids, alices]));
    await face(bot.token, 'deleteMessages', {
      chat_id: groupId,
      message_ids: JSON.stringify([...ids, 999999999]),
    }).expect(200);
    const after = await live();
    for (const id of ids) expect(after).not.toContain(id);
    expect(after).toContain(alices);
    expect((await face(bot.token, 'deleteMessages', { chat_id: groupId, message_ids: [] })).status).toBe(400);
  });

  it('stops a poll exactly once under parallel stopPoll calls', async () => {
    const poll = await face(bot.token, 'sendPoll', {
      chat_id: groupId,
      question: 'Tea?',
      options: ['Yes', 'No'],
    }).expect(200);
    const calls = await Promise.all(
      Array.from({ length: 4 }, () =>
        face(bot.token, 'stopPoll', { chat_id: groupId, message_id: poll.body.result.message_id }),
      ),
    );
    expect(calls.map((res) => res.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('deletes each message once when deleteMessages calls with overlapping ids run in parallel', async () => {
    // message_deleted has no Telegram name: the native getUpdates subscribes the bot to it.
    await callBot(ctx, bot.token, 'getUpdates', {
      offset: updates.offset(bot),
      allowed_updates: ['message', 'chat_join_request', 'chat_member', 'message_deleted'],
    }).expect(200);
    await updates.drain(bot);
    const ids: number[] = [];
    for (const text of ['p', 'q', 'r', 's'])
      ids.push((await face(bot.token, 'sendMessage', { chat_id: groupId, text }).expect(200)).body.result.message_id);
    const calls = await Promise.all([
      face(bot.token, 'deleteMessages', { chat_id: groupId, message_ids: ids }),
      face(bot.token, 'deleteMessages', { chat_id: groupId, message_ids: [...ids].reverse() }),
      face(bot.token, 'deleteMessages', { chat_id: groupId, message_ids: ids.slice(1, 3) }),
    ]);
    expect(calls.map((res) => res.status)).toEqual([200, 200, 200]);
    const deleted = (await updates.drain(bot)).filter((u) => u.type === 'message_deleted');
    const counted = deleted.map((u) => (u.message as { message_id: number }).message_id).sort((a, b) => a - b);
    expect(counted).toEqual(ids);
  });

  it('declines and approves join requests by their Updates; a bot without rank is refused, and the approved user is one the bot can look up', async () => {
    await updates.drain(bot);
    const carol = clientAs(ctx, await ctx.jwt('carol', 'Carol'));
    await carol.post(`/chats/${groupUuid}/join-requests`, {}).expect(201);
    const request1 = await face(bot.token, 'getUpdates', {
      allowed_updates: ['message', 'chat_join_request', 'chat_member'],
    }).expect(200);
    const asked = request1.body.result.find(
      (u: { chat_join_request?: unknown }) => u.chat_join_request,
    ).chat_join_request;
    expect(asked).toMatchObject({ chat: { id: groupId, type: 'group', title: 'Desk' }, from: { first_name: 'Carol' } });
    const carolId = asked.from.id;
    // The other bot is a plain member: the group's approval rules refuse it.
    expect((await face(other.token, 'approveChatJoinRequest', { chat_id: groupId, user_id: carolId })).status).toBe(
      403,
    );
    await face(bot.token, 'declineChatJoinRequest', { chat_id: groupId, user_id: carolId }).expect(200);
    await carol.get(`/chats/${groupUuid}/messages`).expect(404);
    const none = await face(bot.token, 'approveChatJoinRequest', { chat_id: groupId, user_id: carolId }).expect(400);
    expect(none.body.description).toBe('Bad Request: no pending join request of this user');
    await carol.post(`/chats/${groupUuid}/join-requests`, {}).expect(201);
    await face(bot.token, 'approveChatJoinRequest', { chat_id: groupId, user_id: carolId }).expect(200);
    await carol.get(`/chats/${groupUuid}/messages`).expect(200);
    const lookedUp = await face(bot.token, 'getUserProfilePhotos', { user_id: carolId }).expect(200);
    expect(lookedUp.body.result).toEqual({ total_count: 0, photos: [] });
  });

  it('names itself with setMyName, which members then see, and keeps short descriptions', async () => {
    await face(bot.token, 'setMyName', { name: 'Help Desk' }).expect(200);
    expect((await face(bot.token, 'getMyName').expect(200)).body.result).toEqual({ name: 'Help Desk' });
    expect((await face(bot.token, 'getMe').expect(200)).body.result.first_name).toBe('Help Desk');
    expect((await callBot(ctx, bot.token, 'getMyName', {}).expect(200)).body.data).toEqual({ name: 'Help Desk' });
    const sent = await face(bot.token, 'sendMessage', { chat_id: groupId, text: 'renamed' }).expect(200);
    expect(sent.body.result.from.first_name).toBe('Help Desk');
    expect((await face(bot.token, 'setMyName', { name: '' })).status).toBe(400);
    expect((await face(bot.token, 'setMyName', { name: 'x', language_code: 'de' })).status).toBe(400);
    expect((await face(other.token, 'getMyName').expect(200)).body.result).toEqual({ name: 'Other Bot' });
    await face(bot.token, 'setMyShortDescription', { short_description: 'Answers fast' }).expect(200);
    expect((await face(bot.token, 'getMyShortDescription').expect(200)).body.result).toEqual({
      short_description: 'Answers fast',
    });
  });

  it("lets no bot reach another bot's messages, groups or users through the new native routes", async () => {
    const intruder = await createApprovedBot(ctx, 'dev-3', { username: 'intruder_bot' });
    const photo = await insertFile(ctx, { botId: bot.botId });
    const own = await insertFile(ctx, { botId: intruder.botId });
    const sent = await face(bot.token, 'sendPhoto', { chat_id: groupId, photo }).expect(200);
    const poll = await face(bot.token, 'sendPoll', { chat_id: groupId, question: 'Q?', options: ['a', 'b'] }).expect(
      200,
    );
    const messageId = sent.body.result.message_id;
    const refusals = [
      await callBot(ctx, intruder.token, 'editMessageCaption', {
        chat_id: groupUuid,
        message_id: messageId,
        caption: 'x',
      }),
      await callBot(ctx, intruder.token, 'editMessageMedia', {
        chat_id: groupUuid,
        message_id: messageId,
        media: { type: 'photo', file_id: own },
      }),
      await callBot(ctx, intruder.token, 'stopPoll', { chat_id: groupUuid, message_id: poll.body.result.message_id }),
      await callBot(ctx, intruder.token, 'deleteMessages', { chat_id: groupUuid, message_ids: [messageId] }),
      await callBot(ctx, intruder.token, 'leaveChat', { chat_id: groupUuid }),
      await callBot(ctx, intruder.token, 'getUserProfilePhotos', { user_id: 'alice' }),
    ];
    expect(refusals.map((res) => [res.status, res.body.code])).toEqual(Array(6).fill([404, 'NOT_FOUND']));
    const seen = (await owner.get(`/chats/${groupUuid}/messages`).expect(200)).body.data.items;
    expect(seen.find((m: { message_id: number }) => m.message_id === messageId)).toMatchObject({
      file: { file_id: photo },
    });
    expect(seen.find((m: { message_id: number }) => m.message_id === poll.body.result.message_id).poll.is_closed).toBe(
      false,
    );
  });

  it('leaves a group with leaveChat: my_chat_member to itself, chat_member to the other bot; it can leave no private chat', async () => {
    await updates.drain(bot);
    await updates.drain(other);
    expect((await face(other.token, 'leaveChat', { chat_id: groupId }).expect(200)).body.result).toBe(true);
    const own = await updates.drain(other);
    expect(own).toEqual([
      expect.objectContaining({
        type: 'my_chat_member',
        my_chat_member: expect.objectContaining({ new_chat_member: expect.objectContaining({ status: 'left' }) }),
      }),
    ]);
    const seen = await updates.drain(bot);
    expect(seen.map((u) => u.type)).toContain('chat_member');
    expect((await face(other.token, 'getChat', { chat_id: groupId })).body.description).toBe(
      'Bad Request: chat not found',
    );
    const privateChat = await clientAs(ctx, await ctx.jwt('alice', 'Alice'))
      .post('/chats/private', { bot_id: bot.botId })
      .expect(201);
    const refused = await callBot(ctx, bot.token, 'leaveChat', { chat_id: privateChat.body.data.id }).expect(400);
    expect(refused.body.code).toBe('VALIDATION');
  });
});
