import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  insertFile,
  openPrivateChat,
  startBotApp,
} from './app-context';

describe('bot send operations (spec 4.2 Sending, 2.3, 8)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'sender_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    // This file sends far more than 30 messages a second; the quota itself is tested on its own bot below.
    await ctx.app
      .get(DataSource)
      .query(`UPDATE bots SET rate_limits = '{"send_per_sec": 10000}' WHERE id = $1`, [bot.botId]);
    chatId = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(() => ctx.close());

  const send = (method: string, body: object) => callBot(ctx, bot.token, method, { chat_id: chatId, ...body });

  function expectValidation(res: request.Response) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, code: 'VALIDATION', message: expect.any(String) });
  }

  it('sendMessage returns the sent-message shape of spec 2.3', async () => {
    const res = await send('sendMessage', { text: 'hi' }).expect(201);
    expect(res.body).toEqual({ success: true, data: expect.any(Object) });
    expect(res.body.data).toMatchObject({
      message_id: expect.any(Number),
      chat: { id: chatId, type: 'private' },
      from: { id: bot.systemUserId, is_bot: true },
      text: 'hi',
      date: expect.any(Number),
    });
    expect(Math.abs(res.body.data.date - Date.now() / 1000)).toBeLessThan(60);
  });

  it('refuses a missing chat_id or text, text over 4096 characters, an unknown parse_mode and unknown fields with 400 VALIDATION', async () => {
    expectValidation(await callBot(ctx, bot.token, 'sendMessage', { text: 'x' }));
    expectValidation(await send('sendMessage', {}));
    expectValidation(await send('sendMessage', { text: 'x'.repeat(4097) }));
    expectValidation(await send('sendMessage', { text: 'x', parse_mode: 'BBCode' }));
    expectValidation(await send('sendMessage', { text: 'x', format: 'HTML' }));
    await send('sendMessage', { text: 'x'.repeat(4096) }).expect(201);
  });

  it('refuses NUL characters and ids beyond the safe integer range with 400 VALIDATION, never a 500', async () => {
    expectValidation(await send('sendMessage', { text: 'a\u0000b' }));
    expectValidation(await send('sendPoll', { question: 'q', options: ['a', 'b\u0000'] }));
    expectValidation(
      await request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client/chats/${chatId}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ text: 'x\u0000' }),
    );
    expectValidation(
      await request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/getChatMember?chat_id=${chatId}&user_id=%00`)
        .set('Authorization', `Bearer ${bot.token}`),
    );
    expectValidation(await callBot(ctx, bot.token, 'getUpdates', { offset: 1e20 }));
    expectValidation(await send('sendMessage', { text: 'x', reply_to_message_id: 1e20 }));
    expectValidation(await callBot(ctx, bot.token, 'editMessage', { message_id: 1e20, text: 'x' }));
  });

  it('limits callback_data to 1–64 bytes in reply_markup', async () => {
    const keyboard = (data: string) => ({ inline_keyboard: [[{ text: 'Go', callback_data: data }]] });
    const ok = await send('sendMessage', { text: 'menu', reply_markup: keyboard('x'.repeat(64)) }).expect(201);
    expect(ok.body.data.reply_markup).toEqual(keyboard('x'.repeat(64)));
    expectValidation(await send('sendMessage', { text: 'menu', reply_markup: keyboard('x'.repeat(65)) }));
    expectValidation(await send('sendMessage', { text: 'menu', reply_markup: keyboard('') }));
  });

  it('sends every file kind by file_id, filling width, height and duration from the stored file', async () => {
    const photo = await insertFile(ctx, { botId: bot.botId, mimeType: 'image/jpeg', width: 800, height: 600 });
    const sentPhoto = await send('sendPhoto', { file_id: photo, caption: 'view' }).expect(201);
    expect(sentPhoto.body.data).toMatchObject({
      kind: 'photo',
      caption: 'view',
      file: { file_id: photo, mime_type: 'image/jpeg', width: 800, height: 600 },
    });
    const resized = await send('sendPhoto', { file_id: photo, width: 400, height: 300 }).expect(201);
    expect(resized.body.data.file).toMatchObject({ width: 400, height: 300 });

    const video = await insertFile(ctx, {
      botId: bot.botId,
      mimeType: 'video/mp4',
      width: 1280,
      height: 720,
      duration: 42,
    });
    const audio = await insertFile(ctx, { botId: bot.botId, mimeType: 'audio/mpeg', duration: 180 });
    const doc = await insertFile(ctx, { botId: bot.botId, mimeType: 'application/pdf', fileName: 'terms.pdf' });
    const cases: Array<[string, object, string, object]> = [
      ['sendDocument', { file_id: doc }, 'document', { file_name: 'terms.pdf' }],
      ['sendVideo', { file_id: video }, 'video', { duration: 42, width: 1280 }],
      [
        'sendAudio',
        { file_id: audio, performer: 'Band', title: 'Song' },
        'audio',
        { duration: 180, performer: 'Band', title: 'Song' },
      ],
      [
        'sendVoice',
        { file_id: audio, duration: 5, performer: 'Me', title: 'Memo' },
        'voice',
        { duration: 5, performer: 'Me', title: 'Memo' },
      ],
      ['sendVideoNote', { file_id: video }, 'video_note', { duration: 42 }],
      ['sendAnimation', { file_id: video, duration: 3 }, 'animation', { duration: 3 }],
      ['sendSticker', { file_id: photo }, 'sticker', { width: 800 }],
    ];
    for (const [method, body, kind, file] of cases) {
      const res = await send(method, body);
      expect([method, res.status]).toEqual([method, 201]);
      expect(res.body.data).toMatchObject({ kind, file });
    }
  });

  it('answers 400 for a missing file_id or a caption over 1024, 404 for a file the bot cannot see', async () => {
    const photo = await insertFile(ctx, { botId: bot.botId });
    const voice = await insertFile(ctx, { botId: bot.botId, mimeType: 'audio/ogg' });
    expectValidation(await send('sendVoice', { file_id: voice, width: 10 }));
    expectValidation(await send('sendLocation', { latitude: 91, longitude: 0 }));
    expectValidation(await send('sendPhoto', {}));
    expectValidation(await send('sendPhoto', { file_id: photo, caption: 'x'.repeat(1025) }));
    const foreign = await createApprovedBot(ctx, 'dev-2', { username: 'other_bot' });
    const theirs = await insertFile(ctx, { botId: foreign.botId });
    for (const fileId of [theirs, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await send('sendPhoto', { file_id: fileId }).expect(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('sends a location, and a venue only with a title', async () => {
    const location = await send('sendLocation', { latitude: 48.85, longitude: 2.35, name: 'Paris' }).expect(201);
    expect(location.body.data).toMatchObject({
      kind: 'location',
      location: { latitude: 48.85, longitude: 2.35, name: 'Paris' },
      metadata: { location: { latitude: 48.85, longitude: 2.35, name: 'Paris' } },
    });
    expectValidation(await send('sendLocation', { latitude: 91, longitude: 0 }));
    expectValidation(await send('sendVenue', { latitude: 1, longitude: 2 }));
    const venue = await send('sendVenue', { latitude: 1, longitude: 2, title: 'Cafe', address: 'Main St 1' }).expect(
      201,
    );
    expect(venue.body.data).toMatchObject({
      kind: 'venue',
      venue: { title: 'Cafe', address: 'Main St 1', location: { latitude: 1, longitude: 2 } },
      metadata: { isVenue: true, location: { latitude: 1, longitude: 2, name: 'Cafe', address: 'Main St 1' } },
    });
  });

  it("takes sendLocation's optional name on sendVenue beside the required title", async () => {
    const venue = await send('sendVenue', { latitude: 1, longitude: 2, title: 'Cafe Blue', name: 'Old Town' }).expect(
      201,
    );
    expect(venue.body.data).toMatchObject({
      kind: 'venue',
      location: { latitude: 1, longitude: 2, name: 'Old Town' },
      venue: { title: 'Cafe Blue', address: null, location: { latitude: 1, longitude: 2 } },
      metadata: { isVenue: true, location: { latitude: 1, longitude: 2, name: 'Old Town', title: 'Cafe Blue' } },
    });
    expectValidation(await send('sendVenue', { latitude: 1, longitude: 2, title: 'Cafe', name: '' }));
  });

  it('rolls dice on the server inside the range of each emoji', async () => {
    for (const [emoji, max] of [
      ['🎰', 64],
      ['⚽', 5],
      ['🏀', 5],
      ['🎲', 6],
      ['🎯', 6],
      ['🎳', 6],
    ] as const) {
      const res = await send('sendDice', { emoji }).expect(201);
      const { diceEmoji, diceValue } = res.body.data.metadata;
      expect(diceEmoji).toBe(emoji);
      expect(diceValue).toBeGreaterThanOrEqual(1);
      expect(diceValue).toBeLessThanOrEqual(max);
      expect(res.body.data.dice).toEqual({ emoji, value: diceValue });
    }
    const plain = await send('sendDice', {}).expect(201);
    expect(plain.body.data.metadata.diceEmoji).toBe('🎲');
    expectValidation(await send('sendDice', { emoji: '🍕' }));
    expectValidation(await send('sendDice', { emoji: '🎲', value: 6 }));
  });

  it('sends polls with 2 to 12 options; a quiz needs a valid correct_option_id', async () => {
    const poll = await send('sendPoll', { question: 'Tea?', options: ['yes', 'no'] }).expect(201);
    expect(poll.body.data.metadata.poll).toEqual({
      question: 'Tea?',
      options: ['yes', 'no'],
      is_anonymous: true,
      type: 'regular',
    });
    const options = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);
    await send('sendPoll', { question: 'Max', options: options(12) }).expect(201);
    expectValidation(await send('sendPoll', { question: 'Few', options: options(1) }));
    expectValidation(await send('sendPoll', { question: 'Many', options: options(13) }));
    expectValidation(await send('sendPoll', { question: 'Quiz', options: options(3), type: 'quiz' }));
    expectValidation(
      await send('sendPoll', { question: 'Quiz', options: options(3), type: 'quiz', correct_option_id: 3 }),
    );
    expectValidation(await send('sendPoll', { question: 'Poll', options: options(3), correct_option_id: 1 }));
    const quiz = await send('sendPoll', {
      question: '2+2?',
      options: ['3', '4'],
      type: 'quiz',
      is_anonymous: false,
      correct_option_id: 1,
    }).expect(201);
    expect(quiz.body.data.metadata.poll).toEqual({
      question: '2+2?',
      options: ['3', '4'],
      is_anonymous: false,
      type: 'quiz',
      correct_option_id: 1,
    });
  });

  it('sends a contact', async () => {
    const res = await send('sendContact', { phone_number: '+123', first_name: 'Ann', last_name: 'Lee' }).expect(201);
    expect(res.body.data.metadata.contact).toEqual({ phone_number: '+123', first_name: 'Ann', last_name: 'Lee' });
    expectValidation(await send('sendContact', { phone_number: '+123' }));
  });

  it('stores a media group of 2 to 10 as separate messages; only the last carries reply_markup', async () => {
    const a = await insertFile(ctx, { botId: bot.botId });
    const b = await insertFile(ctx, { botId: bot.botId, mimeType: 'video/mp4' });
    const markup = { inline_keyboard: [[{ text: 'More', callback_data: 'more' }]] };
    const res = await send('sendMediaGroup', {
      media: [
        { type: 'photo', file_id: a, caption: 'first' },
        { type: 'video', file_id: b },
        { type: 'photo', file_id: a },
      ],
      reply_markup: markup,
    }).expect(201);
    const items = res.body.data as Array<Record<string, unknown>>;
    expect(items.map((m) => m.kind)).toEqual(['photo', 'video', 'photo']);
    expect(new Set(items.map((m) => m.message_id)).size).toBe(3);
    expect(new Set(items.map((m) => m.media_group_id)).size).toBe(1);
    expect(items.map((m) => m.reply_markup ?? null)).toEqual([null, null, markup]);
    expectValidation(await send('sendMediaGroup', { media: [{ type: 'photo', file_id: a }] }));
    expectValidation(
      await send('sendMediaGroup', { media: Array.from({ length: 11 }, () => ({ type: 'photo', file_id: a })) }),
    );
    expectValidation(
      await send('sendMediaGroup', {
        media: [
          { type: 'sticker', file_id: a },
          { type: 'photo', file_id: a },
        ],
      }),
    );
  });

  it('refuses every send of a bot without the messages:send scope with 403 FORBIDDEN', async () => {
    const mute = await createApprovedBot(ctx, 'dev-3', { username: 'mute_bot', scopes: ['messages:receive'] });
    const res = await callBot(ctx, mute.token, 'sendMessage', { chat_id: chatId, text: 'x' }).expect(403);
    expect(res.body).toEqual({ success: false, code: 'FORBIDDEN', message: expect.any(String) });
  });

  it('answers 429 BOT_RATE_LIMIT with Retry-After and X-BotRateLimit headers past the per-bot quota', async () => {
    const limited = await createApprovedBot(ctx, 'dev-4', { username: 'limited_bot' });
    await ctx.app
      .get(DataSource)
      .query(`UPDATE bots SET rate_limits = '{"send_per_sec": 100, "send_per_min": 3}' WHERE id = $1`, [limited.botId]);
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: limited.botId })
      .expect(201);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        callBot(ctx, limited.token, 'sendMessage', { chat_id: chat.body.data.id, text: `n${i}` }),
      ),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(2);
    expect(refused[0].body).toEqual({ success: false, code: 'BOT_RATE_LIMIT', message: expect.any(String) });
    expect(Number(refused[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused[0].headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused[0].headers['x-botratelimit-remaining']).toBe('0');
    expect(Number(refused[0].headers['x-botratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(ok.map((r) => r.headers['x-botratelimit-remaining']).sort()).toEqual(['0', '1', '2']);
    const list = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${chat.body.data.id}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    expect(list.body.data.total).toBe(3);
  });
});
