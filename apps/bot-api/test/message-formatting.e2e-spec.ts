import {
  ApprovedBot,
  BotTestContext,
  callBot,
  clientAs,
  createApprovedBot,
  insertFile,
  openPrivateChat,
  startBotApp,
  UpdateReader,
} from './app-context';

describe('formatted text, captions and replies in the native API', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;
  let updates: UpdateReader;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'format_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    chatId = await openPrivateChat(ctx, alice, bot.botId);
    updates = new UpdateReader(ctx);
    await updates.drain(bot);
  });
  afterAll(() => ctx.close());

  const send = (method: string, body: object) => callBot(ctx, bot.token, method, { chat_id: chatId, ...body });
  const newest = async () =>
    (await clientAs(ctx, alice).get(`/chats/${chatId}/messages`).expect(200)).body.data.items[0];

  it('stores HTML as plain text with entities, which the sender and the client read alike', async () => {
    const sent = await send('sendMessage', {
      text: '<b>Order</b> <a href="https://shop.example/1">shipped</a> 🚚 /track',
      parse_mode: 'HTML',
    }).expect(201);
    const entities = [
      { type: 'bold', offset: 0, length: 5 },
      { type: 'text_link', offset: 6, length: 7, url: 'https://shop.example/1' },
      { type: 'bot_command', offset: 17, length: 6 },
    ];
    expect(sent.body.data).toMatchObject({ text: 'Order shipped 🚚 /track', entities });
    expect(await newest()).toMatchObject({
      message_id: sent.body.data.message_id,
      text: 'Order shipped 🚚 /track',
      entities,
    });
  });

  it('parses MarkdownV2 with escapes, and refuses malformed markup with 400 and changes nothing', async () => {
    const sent = await send('sendMessage', { text: '*Total:* 5\\.00 ||€||', parse_mode: 'MarkdownV2' }).expect(201);
    expect(sent.body.data).toMatchObject({
      text: 'Total: 5.00 €',
      entities: [
        { type: 'bold', offset: 0, length: 6 },
        { type: 'spoiler', offset: 12, length: 1 },
      ],
    });
    const refused = await send('sendMessage', { text: '*Total: 5.00', parse_mode: 'MarkdownV2' }).expect(400);
    expect(refused.body).toEqual({
      success: false,
      code: 'VALIDATION',
      message: "Can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    });
    const unclosed = await send('sendMessage', { text: '<b>Total', parse_mode: 'HTML' }).expect(400);
    expect(unclosed.body.message).toBe('Can\'t parse entities: Can\'t find end tag corresponding to start tag "b"');
    expect((await newest()).message_id).toBe(sent.body.data.message_id);
  });

  it('takes entities as given, checks them against the text in UTF-16 units, and refuses both formats at once', async () => {
    const sent = await send('sendMessage', {
      text: '👍 fine',
      entities: [{ type: 'italic', offset: 3, length: 4 }],
    }).expect(201);
    expect(sent.body.data.entities).toEqual([{ type: 'italic', offset: 3, length: 4 }]);
    const outside = await send('sendMessage', {
      text: '👍 fine',
      entities: [{ type: 'italic', offset: 3, length: 5 }],
    }).expect(400);
    expect(outside.body.message).toMatch(/^Can't parse entities: entity 0 ends after the text/);
    await send('sendMessage', { text: 'x', entities: [{ type: 'bold', offset: 0, length: 1, color: 'red' }] }).expect(
      400,
    );
    await send('sendMessage', { text: '<b>x</b>', parse_mode: 'HTML', entities: [] }).expect(400);
  });

  it('counts the 4096 characters after parsing: long markup with a short text is sent', async () => {
    const text = `<b>${'x'.repeat(4000)}</b>${'<i></i>'.repeat(20)}`;
    expect(text.length).toBeGreaterThan(4096);
    const sent = await send('sendMessage', { text, parse_mode: 'HTML' }).expect(201);
    expect(sent.body.data.text).toHaveLength(4000);
    await send('sendMessage', { text: `<b>${'x'.repeat(4097)}</b>`, parse_mode: 'HTML' }).expect(400);
  });

  it('formats captions of media sends and edits them, which emits nothing for a bot message', async () => {
    const photo = await insertFile(ctx, { botId: bot.botId, width: 2, height: 2 });
    const sent = await send('sendPhoto', { file_id: photo, caption: '_Fresh_ beans', parse_mode: 'Markdown' }).expect(
      201,
    );
    expect(sent.body.data).toMatchObject({
      caption: 'Fresh beans',
      caption_entities: [{ type: 'italic', offset: 0, length: 5 }],
    });
    const edited = await callBot(ctx, bot.token, 'editMessageCaption', {
      chat_id: chatId,
      message_id: sent.body.data.message_id,
      caption: 'Roasted <u>today</u>',
      parse_mode: 'HTML',
    }).expect(200);
    expect(edited.body.data).toMatchObject({
      caption: 'Roasted today',
      caption_entities: [{ type: 'underline', offset: 8, length: 5 }],
      metadata: { isEdited: true },
    });
    expect(await newest()).toMatchObject({
      caption: 'Roasted today',
      caption_entities: [{ type: 'underline', offset: 8, length: 5 }],
    });
    const text = await send('sendMessage', { text: 'plain' }).expect(201);
    const notMedia = await callBot(ctx, bot.token, 'editMessageCaption', {
      message_id: text.body.data.message_id,
      caption: 'x',
    });
    expect(notMedia.status).toBe(400);
  });

  it("carries the message replied to, one level deep, to the client, the bot's answer and its Update", async () => {
    const question = await send('sendMessage', { text: 'Which *size*?', parse_mode: 'MarkdownV2' }).expect(201);
    await updates.drain(bot);
    const answer = await clientAs(ctx, alice)
      .post(`/chats/${chatId}/messages`, { text: 'Large', reply_to_message_id: question.body.data.message_id })
      .expect(201);
    expect(answer.body.data.reply_to_message).toMatchObject({
      message_id: question.body.data.message_id,
      text: 'Which size?',
    });
    const [update] = await updates.drain(bot);
    expect(update.message).toMatchObject({
      text: 'Large',
      reply_to_message: {
        message_id: question.body.data.message_id,
        text: 'Which size?',
        entities: [{ type: 'bold', offset: 6, length: 4 }],
        from: { id: bot.systemUserId, is_bot: true },
      },
    });
    const thanks = await send('sendMessage', {
      text: 'Noted',
      reply_to_message_id: answer.body.data.message_id,
    }).expect(201);
    // One level: the message replied to does not bring its own reply along.
    expect(thanks.body.data.reply_to_message).toMatchObject({ message_id: answer.body.data.message_id, text: 'Large' });
    expect(thanks.body.data.reply_to_message.reply_to_message).toBeUndefined();
    expect(thanks.body.data.reply_to_message.reply_to_message_id).toBe(question.body.data.message_id);
    expect(await newest()).toMatchObject({ text: 'Noted', reply_to_message: { text: 'Large' } });
  });

  it('drops reply_to_message once the message replied to is deleted, keeping its id', async () => {
    const first = await send('sendMessage', { text: 'soon gone' }).expect(201);
    const reply = await send('sendMessage', {
      text: 'about that',
      reply_to_message_id: first.body.data.message_id,
    }).expect(201);
    await callBot(ctx, bot.token, 'deleteMessage', { chat_id: chatId, message_id: first.body.data.message_id }).expect(
      200,
    );
    const items = (await clientAs(ctx, alice).get(`/chats/${chatId}/messages`).expect(200)).body.data.items;
    const shown = items.find((m: { message_id: number }) => m.message_id === reply.body.data.message_id);
    expect(shown.reply_to_message_id).toBe(first.body.data.message_id);
    expect(shown.reply_to_message).toBeUndefined();
  });

  it("gives a user's own entities to the bot's Update, and an edit's new formatting to edited_message", async () => {
    await updates.drain(bot);
    const posted = await clientAs(ctx, alice)
      .post(`/chats/${chatId}/messages`, { text: 'see #menu', entities: [{ type: 'bold', offset: 0, length: 3 }] })
      .expect(201);
    const [update] = await updates.drain(bot);
    expect(update.message).toMatchObject({
      entities: [
        { type: 'bold', offset: 0, length: 3 },
        { type: 'hashtag', offset: 4, length: 5 },
      ],
    });
    await clientAs(ctx, alice)
      .patch(`/chats/${chatId}/messages/${posted.body.data.message_id}`, {
        text: 'see menu',
        entities: [{ type: 'strikethrough', offset: 4, length: 4 }],
      })
      .expect(200);
    const [edit] = await updates.drain(bot);
    expect(edit).toMatchObject({
      type: 'edited_message',
      message: { kind: 'text', text: 'see menu', entities: [{ type: 'strikethrough', offset: 4, length: 4 }] },
    });
  });
});
