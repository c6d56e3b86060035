import request from 'supertest';
import { eventually } from '@app/testing';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  clientAs,
  createApprovedBot,
  startBotApp,
  TestUpdate,
  UpdateReader,
} from './app-context';

/** Short enough to wait out in a test, long enough for an answer right after the click. */
const WINDOW_MS = 3000;

const keyboard = (...data: string[]) => ({ inline_keyboard: [data.map((d) => ({ text: d, callback_data: d }))] });

describe('Interaction: callback queries and inline queries (spec 3.5, 4.2 "Interaction", 6.1, 6.2)', () => {
  let ctx: BotTestContext;
  let buttons: ApprovedBot;
  let other: ApprovedBot;
  let jwt: Record<string, string>;
  let groupId: string;
  let menuId: number;
  let personMessageId: number;
  let updates: UpdateReader;

  beforeAll(async () => {
    ctx = await startBotApp({ CALLBACK_ANSWER_WINDOW_MS: String(WINDOW_MS) });
    updates = new UpdateReader(ctx);
    buttons = await createApprovedBot(ctx, 'dev-1', { username: 'buttons_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { username: 'plain_bot' });
    jwt = {};
    for (const user of ['alice', 'bob', 'carol']) jwt[user] = await ctx.jwt(user, user.toUpperCase());
    await client('carol').get('/callback-queries/00000000-0000-4000-8000-000000000000');
    await client('bob').get('/callback-queries/00000000-0000-4000-8000-000000000000');
    const group = await client('alice')
      .post('/chats', { type: 'group', title: 'Menu', member_ids: ['bob', buttons.systemUserId, other.systemUserId] })
      .expect(201);
    groupId = group.body.data.id;
    const menu = await callBot(ctx, buttons.token, 'sendMessage', {
      chat_id: groupId,
      text: 'Coffee?',
      reply_markup: keyboard('yes', 'no'),
    }).expect(201);
    menuId = menu.body.data.message_id;
    const said = await client('alice').post(`/chats/${groupId}/messages`, { text: 'hello all' }).expect(201);
    personMessageId = said.body.data.message_id;
    await drain(buttons);
    await drain(other);
  });
  afterAll(() => ctx.close());

  const client = (user: string) => clientAs(ctx, jwt[user]);
  const drain = (bot: ApprovedBot) => updates.drain(bot);

  const click = (user = 'bob', data = 'yes') =>
    client(user).post('/callback-queries', { chat_id: groupId, message_id: menuId, data });

  describe('callback queries', () => {
    it('a click reaches the bot as a callback_query; an answer at once is what the clicking user reads', async () => {
      const clicked = await click().expect(201);
      const id = clicked.body.data.id as string;
      expect(clicked.body.data).toEqual({ id });
      const updates = await drain(buttons);
      expect(updates).toHaveLength(1);
      expect(updates[0]).toMatchObject({
        type: 'callback_query',
        bot_id: buttons.botId,
        callback_query: {
          id,
          from: { id: 'bob', is_bot: false, first_name: 'BOB' },
          message: { message_id: menuId, chat: { id: groupId, type: 'group' } },
          data: 'yes',
          chat_instance: expect.any(String),
        },
      });
      expect(await drain(other)).toEqual([]);
      expect((await client('bob').get(`/callback-queries/${id}`).expect(200)).body.data).toEqual({
        id,
        status: 'pending',
        answer: null,
      });

      const answered = await callBot(ctx, buttons.token, 'answerCallbackQuery', {
        callback_query_id: id,
        text: 'Brewing',
        show_alert: true,
      }).expect(200);
      expect(answered.body.data).toBe(true);
      expect((await client('bob').get(`/callback-queries/${id}`).expect(200)).body.data).toEqual({
        id,
        status: 'answered',
        answer: { text: 'Brewing', show_alert: true, url: null, cache_time: 0 },
      });
    });

    it('a second answer to one callback query is 409 CONFLICT and changes nothing', async () => {
      const id = (await click().expect(201)).body.data.id;
      await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id, text: 'first' }).expect(200);
      const again = await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id, text: 'second' });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, code: 'CONFLICT' });
      expect((await client('bob').get(`/callback-queries/${id}`)).body.data.answer.text).toBe('first');
    });

    it('of concurrent answers to one callback query exactly one wins; the others get 409', async () => {
      const id = (await click().expect(201)).body.data.id;
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id, text: `answer ${n}` }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
      const winner = answers.findIndex((res) => res.status === 200);
      expect((await client('bob').get(`/callback-queries/${id}`)).body.data.answer.text).toBe(`answer ${winner}`);
    });

    it('an answer after the window is 410 QUERY_EXPIRED, and the user sees the query expired', async () => {
      const id = (await click().expect(201)).body.data.id;
      await eventually(
        async () => {
          expect((await client('bob').get(`/callback-queries/${id}`).expect(200)).body.data.status).toBe('expired');
        },
        WINDOW_MS + 300,
        100,
      );
      const late = await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id });
      expect(late.status).toBe(410);
      expect(late.body).toMatchObject({ success: false, code: 'QUERY_EXPIRED' });
      expect((await client('bob').get(`/callback-queries/${id}`).expect(200)).body.data).toEqual({
        id,
        status: 'expired',
        answer: null,
      });
    });

    it("another bot's query id, an unknown id and a malformed id answer 404", async () => {
      const id = (await click().expect(201)).body.data.id;
      const foreign = await callBot(ctx, other.token, 'answerCallbackQuery', { callback_query_id: id });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');
      await callBot(ctx, other.token, 'answerCallbackQuery', {
        callback_query_id: '00000000-0000-4000-8000-000000000000',
      }).expect(404);
      await callBot(ctx, other.token, 'answerCallbackQuery', { callback_query_id: 'nope' }).expect(404);
      // The rightful bot can still answer: the foreign attempt changed nothing.
      await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id }).expect(200);
    });

    it("another user's callback query answers 404", async () => {
      const id = (await click('bob').expect(201)).body.data.id;
      const res = await client('carol').get(`/callback-queries/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      await client('alice').get(`/callback-queries/${id}`).expect(404);
    });

    it('refuses clicks by non-members, on buttons the message does not have, and on messages of people', async () => {
      await drain(buttons);
      const outsider = await click('carol');
      expect(outsider.status).toBe(404);
      const noButton = await click('bob', 'maybe');
      expect(noButton.status).toBe(400);
      expect(noButton.body.code).toBe('VALIDATION');
      await client('bob')
        .post('/callback-queries', { chat_id: groupId, message_id: personMessageId, data: 'yes' })
        .expect(400);
      await client('bob').post('/callback-queries', { chat_id: groupId, message_id: 999999, data: 'yes' }).expect(404);
      await client('bob')
        .post('/callback-queries', { chat_id: groupId, message_id: menuId, data: 'x'.repeat(65) })
        .expect(400);
      expect(await drain(buttons)).toEqual([]);
    });

    it('rejects unknown body fields on the click and on the answer', async () => {
      const res = await client('bob').post('/callback-queries', {
        chat_id: groupId,
        message_id: menuId,
        data: 'yes',
        bot_id: other.botId,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION');
      const id = (await click().expect(201)).body.data.id;
      await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id, bot_id: other.botId }).expect(
        400,
      );
      await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id, url: 'http://x.test' }).expect(
        400,
      );
    });

    it('chat_instance is stable for the chat and bot, and is not the chat id', async () => {
      await drain(buttons);
      await click('bob', 'yes').expect(201);
      await click('alice', 'no').expect(201);
      const [first, second] = (await drain(buttons)).map(
        (u) => (u.callback_query as { chat_instance: string }).chat_instance,
      );
      expect(first).toBe(second);
      expect(first).not.toContain(groupId);
      expect(first).not.toContain(buttons.botId);
    });

    it('allowed_updates without callback_query leaves the click undelivered, yet answerable', async () => {
      await callBot(ctx, buttons.token, 'getUpdates', {
        offset: updates.offset(buttons),
        allowed_updates: ['message'],
      }).expect(200);
      const id = (await click().expect(201)).body.data.id;
      expect(await drain(buttons)).toEqual([]);
      await callBot(ctx, buttons.token, 'answerCallbackQuery', { callback_query_id: id }).expect(200);
      await callBot(ctx, buttons.token, 'getUpdates', {
        offset: updates.offset(buttons),
        allowed_updates: [],
      }).expect(200);
    });
  });

  describe('inline queries', () => {
    let inlineBot: ApprovedBot;

    beforeAll(async () => {
      inlineBot = await createApprovedBot(ctx, 'dev-3', { username: 'search_bot' });
      await request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/my/${inlineBot.botId}`)
        .set('Authorization', `Bearer ${await ctx.jwt('dev-3')}`)
        .send({ supports_inline_queries: true })
        .expect(200);
    });

    const ask = (user: string, body: object) => client(user).post('/inline-queries', body);
    const article = (id: string) => ({
      type: 'article',
      id,
      title: `Result ${id}`,
      input_message_content: { message_text: `You picked ${id}`, parse_mode: 'HTML' },
    });

    it('reaches only a bot with inline support: others answer 400 INLINE_NOT_SUPPORTED, unknown names 404', async () => {
      const refused = await ask('bob', { bot_username: 'plain_bot', query: 'latte' });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('INLINE_NOT_SUPPORTED');
      expect(await drain(other)).toEqual([]);
      await ask('bob', { bot_username: 'nobody_bot', query: 'latte' }).expect(404);

      const asked = await ask('bob', { bot_username: '@Search_Bot', query: 'latte', offset: '10' }).expect(201);
      const updates = await drain(inlineBot);
      expect(updates).toHaveLength(1);
      expect(updates[0]).toMatchObject({
        type: 'inline_query',
        bot_id: inlineBot.botId,
        inline_query: {
          id: asked.body.data.id,
          from: { id: 'bob', is_bot: false },
          query: 'latte',
          offset: '10',
          chat_type: 'sender',
        },
      });
    });

    it('tells the chat type when the user types in a chat of theirs, and 404 for a chat that is not', async () => {
      await ask('bob', { bot_username: 'search_bot', query: 'q', chat_id: groupId }).expect(201);
      const [update] = await drain(inlineBot);
      expect(update.inline_query).toMatchObject({ chat_type: 'group' });
      await ask('carol', { bot_username: 'search_bot', query: 'q', chat_id: groupId }).expect(404);
    });

    it('refuses a non-article result, naming it by index and id; the query stays answerable', async () => {
      const id = (await ask('bob', { bot_username: 'search_bot', query: 'cup' }).expect(201)).body.data.id;
      const refused = await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: [article('a'), { type: 'photo', id: 'p1', photo_url: 'https://img.test/p.jpg' }],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION');
      expect(refused.body.message).toContain('results[1] (id "p1")');
      const notText = await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: [{ ...article('b'), input_message_content: { latitude: 1, longitude: 2 } }],
      });
      expect(notText.status).toBe(400);
      expect(notText.body.message).toContain('results[0] (id "b")');
      const duplicate = await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: [article('a'), article('a')],
      });
      expect(duplicate.status).toBe(400);
      const tooMany = await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: Array.from({ length: 51 }, (_, n) => article(`r${n}`)),
      });
      expect(tooMany.status).toBe(400);
      expect((await client('bob').get(`/inline-queries/${id}`)).body.data.status).toBe('pending');
    });

    it('the asking user reads the results; a second answer is 409; other users and bots get 404', async () => {
      const id = (await ask('bob', { bot_username: 'search_bot', query: 'tea' }).expect(201)).body.data.id;
      await callBot(ctx, buttons.token, 'answerInlineQuery', { inline_query_id: id, results: [article('x')] }).expect(
        404,
      );
      await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: [article('green'), article('black')],
        next_offset: '2',
        is_personal: true,
      }).expect(200);
      const read = await client('bob').get(`/inline-queries/${id}`).expect(200);
      expect(read.body.data).toEqual({
        id,
        status: 'answered',
        query: 'tea',
        offset: '',
        answer: {
          results: [article('green'), article('black')],
          cache_time: 300,
          is_personal: true,
          next_offset: '2',
        },
      });
      await client('carol').get(`/inline-queries/${id}`).expect(404);
      const again = await callBot(ctx, inlineBot.token, 'answerInlineQuery', { inline_query_id: id, results: [] });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('CONFLICT');
    });

    it('an inline answer after the window is 410 QUERY_EXPIRED', async () => {
      const id = (await ask('bob', { bot_username: 'search_bot', query: 'late' }).expect(201)).body.data.id;
      await eventually(
        async () => {
          expect((await client('bob').get(`/inline-queries/${id}`).expect(200)).body.data.status).toBe('expired');
        },
        WINDOW_MS + 300,
        100,
      );
      const late = await callBot(ctx, inlineBot.token, 'answerInlineQuery', { inline_query_id: id, results: [] });
      expect(late.status).toBe(410);
      expect(late.body.code).toBe('QUERY_EXPIRED');
      expect((await client('bob').get(`/inline-queries/${id}`)).body.data.status).toBe('expired');
    });

    it('rejects unknown body fields', async () => {
      const res = await ask('bob', { bot_username: 'search_bot', query: 'x', bot_id: other.botId });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION');
      const id = (await ask('bob', { bot_username: 'search_bot', query: 'y' }).expect(201)).body.data.id;
      await callBot(ctx, inlineBot.token, 'answerInlineQuery', {
        inline_query_id: id,
        results: [],
        switch_pm_text: 'x',
      }).expect(400);
    });
  });
});

describe('Interaction queries past the retention', () => {
  it('are purged with the Updates retention, answered or not', async () => {
    const { DataSource } = await import('typeorm');
    const { QueriesPurgeService } = await import('../src/interaction/queries-purge.service');
    const ctx = await startBotApp();
    try {
      const bot = await createApprovedBot(ctx, 'dev-9', { username: 'old_bot' });
      await request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/my/${bot.botId}`)
        .set('Authorization', `Bearer ${await ctx.jwt('dev-9')}`)
        .send({ supports_inline_queries: true })
        .expect(200);
      const asker = `Bearer ${await ctx.jwt('asker')}`;
      const ask = () =>
        request(ctx.app.getHttpServer())
          .post('/api/v1/bots/client/inline-queries')
          .set('Authorization', asker)
          .send({ bot_username: 'old_bot', query: 'q' })
          .expect(201);
      const old = (await ask()).body.data.id;
      const fresh = (await ask()).body.data.id;
      const db = ctx.app.get(DataSource);
      await db.query(`UPDATE inline_queries SET created_at = now() - interval '25 hours' WHERE id = $1`, [old]);
      expect(await ctx.app.get(QueriesPurgeService).sweep()).toBe(1);
      const left: Array<{ id: string }> = await db.query(`SELECT id FROM inline_queries`);
      expect(left.map((row) => row.id)).toEqual([fresh]);
    } finally {
      await ctx.close();
    }
  });
});

describe('Flooding a bot through clicks and inline queries', () => {
  it('is cut off per account by the client.callback_query and client.inline_query limits, writing no Update', async () => {
    const ctx = await startBotApp({ RATE_LIMITS: 'client.callback_query=2,client.inline_query=2' });
    try {
      const bot = await createApprovedBot(ctx, 'dev-8', { username: 'flood_bot' });
      const owner = `Bearer ${await ctx.jwt('dev-8')}`;
      await request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/my/${bot.botId}`)
        .set('Authorization', owner)
        .send({ supports_inline_queries: true })
        .expect(200);
      const user = `Bearer ${await ctx.jwt('flooder')}`;
      const post = (path: string, body: object) =>
        request(ctx.app.getHttpServer()).post(`/api/v1/bots/client${path}`).set('Authorization', user).send(body);
      const chat = await post('/chats', { type: 'group', title: 'Flood', member_ids: [bot.systemUserId] }).expect(201);
      const menu = await callBot(ctx, bot.token, 'sendMessage', {
        chat_id: chat.body.data.id,
        text: 'Press',
        reply_markup: keyboard('go'),
      }).expect(201);
      const click = () =>
        post('/callback-queries', { chat_id: chat.body.data.id, message_id: menu.body.data.message_id, data: 'go' });
      const ask = () => post('/inline-queries', { bot_username: 'flood_bot', query: 'q' });
      const statuses = [];
      for (const call of [click, click, click, ask, ask, ask]) statuses.push((await call()).status);
      expect(statuses).toEqual([201, 201, 429, 201, 201, 429]);
      const limited = await click();
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(limited.headers['retry-after']).toBeDefined();
      const updates = (await callBot(ctx, bot.token, 'getUpdates', {}).expect(200)).body.data as TestUpdate[];
      expect(updates.map((u) => u.type).sort()).toEqual([
        'callback_query',
        'callback_query',
        'inline_query',
        'inline_query',
      ]);
      // Other client routes keep their own budget.
      await post(`/chats/${chat.body.data.id}/messages`, { text: 'still talking' }).expect(201);
    } finally {
      await ctx.close();
    }
  });
});

describe('Interaction Updates in webhook mode', () => {
  it('get a webhook delivery written with them, like every other Update', async () => {
    const { DataSource } = await import('typeorm');
    const ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    try {
      const bot = await createApprovedBot(ctx, 'dev-6', { username: 'hooked_bot' });
      await request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/my/${bot.botId}`)
        .set('Authorization', `Bearer ${await ctx.jwt('dev-6')}`)
        .send({ supports_inline_queries: true })
        .expect(200);
      await callBot(ctx, bot.token, 'setWebhook', {
        url: 'https://127.0.0.1:9/hook',
        secret_token: 'interaction-secret-0123456789',
      }).expect(200);
      const user = `Bearer ${await ctx.jwt('hooked-user')}`;
      const post = (path: string, body: object) =>
        request(ctx.app.getHttpServer()).post(`/api/v1/bots/client${path}`).set('Authorization', user).send(body);
      const chat = await post('/chats/private', { bot_id: bot.botId }).expect(201);
      const menu = await callBot(ctx, bot.token, 'sendMessage', {
        chat_id: chat.body.data.id,
        text: 'Press',
        reply_markup: keyboard('go'),
      }).expect(201);
      const clicked = await post('/callback-queries', {
        chat_id: chat.body.data.id,
        message_id: menu.body.data.message_id,
        data: 'go',
      }).expect(201);
      const asked = await post('/inline-queries', { bot_username: 'hooked_bot', query: 'q' }).expect(201);
      const deliveries: Array<{ update_type: string; payload: Record<string, { id: string }> }> = await ctx.app
        .get(DataSource)
        .query(
          `SELECT update_type, payload FROM webhook_deliveries
            WHERE bot_id = $1 AND update_type IN ('callback_query', 'inline_query') ORDER BY update_seq`,
          [bot.botId],
        );
      expect(deliveries.map((d) => [d.update_type, d.payload[d.update_type].id])).toEqual([
        ['callback_query', clicked.body.data.id],
        ['inline_query', asked.body.data.id],
      ]);
    } finally {
      await ctx.close();
    }
  });
});
