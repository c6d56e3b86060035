import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { declaredNameOf } from '@app/platform';
import { ApprovedBot, BotTestContext, createApprovedBot, insertFile, STAFF_ID, startBotApp } from './app-context';

jest.setTimeout(60_000);

/** Sends, edits, forwards and copies of the native bot API under an optional Idempotency-Key. */
describe('idempotent sends (Idempotency-Key on the native bot API)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let alice: string;
  let aliceChat: string;
  let bobChat: string;
  let otherChat: string;
  const db = () => ctx.app.get(DataSource);
  const server = () => ctx.app.getHttpServer();

  async function privateChat(userToken: string, botId: string): Promise<string> {
    const res = await request(server())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${userToken}`)
      .send({ bot_id: botId })
      .expect(201);
    return res.body.data.id as string;
  }

  beforeAll(async () => {
    ctx = await startBotApp({ REDRIVE_WORKER_ENABLED: 'false' });
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'keyed_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { username: 'other_keyed_bot' });
    await db().query(`UPDATE bots SET rate_limits = '{"send_per_sec": 10000}' WHERE id = ANY($1)`, [
      [bot.botId, other.botId],
    ]);
    alice = await ctx.jwt('alice', 'Alice');
    const bob = await ctx.jwt('bob', 'Bob');
    aliceChat = await privateChat(alice, bot.botId);
    bobChat = await privateChat(bob, bot.botId);
    otherChat = await privateChat(alice, other.botId);
  });
  afterAll(() => ctx.close());

  function call(token: string, method: string, body: object, key?: string) {
    const req = request(server()).post(`/api/v1/bots/${method}`).set('Authorization', `Bearer ${token}`);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  }

  function expectError(res: request.Response, status: number, code: string) {
    expect([res.status, res.body]).toEqual([status, { success: false, code, message: expect.any(String) }]);
  }

  async function messagesWithText(chatId: string, text: string): Promise<number> {
    const [{ count }] = await db().query(
      `SELECT count(*)::int AS count FROM messages WHERE chat_id = $1 AND text = $2 AND deleted_at IS NULL`,
      [chatId, text],
    );
    return count;
  }

  async function updatesOf(botId: string, type?: string): Promise<number> {
    const [{ count }] = await db().query(
      `SELECT count(*)::int AS count FROM updates WHERE bot_id = $1 AND ($2::text IS NULL OR type = $2)`,
      [botId, type ?? null],
    );
    return count;
  }

  describe('sendMessage', () => {
    it('a retry with the same key and body answers the original message byte for byte and posts nothing', async () => {
      const key = randomUUID();
      const body = { chat_id: aliceChat, text: `once ${key}` };
      const updatesBefore = await updatesOf(bot.botId);
      const first = await call(bot.token, 'sendMessage', body, key).expect(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.headers['x-botratelimit-remaining']).toBeDefined();
      const updatesAfterFirst = await updatesOf(bot.botId);

      const retry = await call(bot.token, 'sendMessage', body, key).expect(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe(first.text);
      expect(retry.body.data.message_id).toBe(first.body.data.message_id);

      expect(await messagesWithText(aliceChat, body.text)).toBe(1);
      expect(await updatesOf(bot.botId)).toBe(updatesAfterFirst);
      expect(updatesAfterFirst).toBe(updatesBefore);
      const list = await request(server())
        .get(`/api/v1/bots/client/chats/${aliceChat}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .expect(200);
      const shown = list.body.data.items.filter((m: { text: string }) => m.text === body.text);
      expect(shown.map((m: { message_id: number }) => m.message_id)).toEqual([first.body.data.message_id]);
    });

    it('the same key with another body answers 409 IDEMPOTENCY_KEY_REUSED in the bot envelope and sends nothing', async () => {
      const key = randomUUID();
      await call(bot.token, 'sendMessage', { chat_id: aliceChat, text: `first ${key}` }, key).expect(201);
      const reused = await call(bot.token, 'sendMessage', { chat_id: aliceChat, text: `second ${key}` }, key);
      expectError(reused, 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(await messagesWithText(aliceChat, `second ${key}`)).toBe(0);
      // Another send method is another request too, even with a body that reads the same.
      const otherMethod = await call(bot.token, 'sendDice', { chat_id: aliceChat }, key);
      expectError(otherMethod, 409, 'IDEMPOTENCY_KEY_REUSED');
    });

    it("one bot's key never answers for another bot: the same key and body send on each", async () => {
      const key = randomUUID();
      const text = `shared key ${key}`;
      const mine = await call(bot.token, 'sendMessage', { chat_id: aliceChat, text }, key).expect(201);
      const theirs = await call(other.token, 'sendMessage', { chat_id: otherChat, text }, key).expect(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.data.chat.id).toBe(otherChat);
      expect(theirs.body.data.message_id).not.toBe(mine.body.data.message_id);
      // Nor can another bot read a bot's stored answer by its key: its own body is judged on its own.
      const probe = await call(other.token, 'sendMessage', { chat_id: aliceChat, text }, key);
      expectError(probe, 409, 'IDEMPOTENCY_KEY_REUSED');
      expect(await messagesWithText(aliceChat, text)).toBe(1);
      expect(await messagesWithText(otherChat, text)).toBe(1);
    });

    it('parallel identical requests with one key post exactly one message; each answers it or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
      const key = randomUUID();
      const body = { chat_id: aliceChat, text: `parallel ${key}` };
      const responses = await Promise.all(Array.from({ length: 12 }, () => call(bot.token, 'sendMessage', body, key)));
      const originals = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(originals).toHaveLength(1);
      for (const res of responses) {
        if (res.status === 201) expect(res.text).toBe(originals[0].text);
        else {
          expectError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
          expect(res.headers['retry-after']).toBe('1');
        }
      }
      expect(await messagesWithText(aliceChat, body.text)).toBe(1);
      const settled = await call(bot.token, 'sendMessage', body, key).expect(201);
      expect(settled.text).toBe(originals[0].text);
    });

    it('a refusal is stored and replayed; a malformed key is 400 and sends nothing', async () => {
      const key = randomUUID();
      const body = { chat_id: randomUUID(), text: 'to nowhere' };
      const first = await call(bot.token, 'sendMessage', body, key);
      expectError(first, 404, 'NOT_FOUND');
      const again = await call(bot.token, 'sendMessage', body, key);
      expect([again.status, again.text, again.headers['idempotent-replayed']]).toEqual([404, first.text, 'true']);

      const text = `bad key ${key}`;
      expectError(
        await call(bot.token, 'sendMessage', { chat_id: aliceChat, text }, 'x'.repeat(256)),
        400,
        'VALIDATION',
      );
      expectError(await call(bot.token, 'sendMessage', { chat_id: aliceChat, text }, 'tab\there'), 400, 'VALIDATION');
      expect(await messagesWithText(aliceChat, text)).toBe(0);
    });
  });

  describe('send quota', () => {
    let tight: ApprovedBot;
    let tightChat: string;

    beforeAll(async () => {
      tight = await createApprovedBot(ctx, 'dev-3', { username: 'tight_bot' });
      await db().query(`UPDATE bots SET rate_limits = '{"send_per_min": 2}' WHERE id = $1`, [tight.botId]);
      tightChat = await privateChat(alice, tight.botId);
    });

    it('a replay spends no send quota and is answered even when the quota is used up', async () => {
      const key = randomUUID();
      const body = { chat_id: tightChat, text: `counted once ${key}` };
      const first = await call(tight.token, 'sendMessage', body, key).expect(201);
      expect(first.headers['x-botratelimit-remaining']).toBe('1');
      for (let i = 0; i < 3; i++) {
        const replay = await call(tight.token, 'sendMessage', body, key).expect(201);
        expect(replay.text).toBe(first.text);
      }
      // The one send left is still there: the replays above counted nothing.
      const plain = await call(tight.token, 'sendMessage', { chat_id: tightChat, text: 'plain' }).expect(201);
      expect(plain.headers['x-botratelimit-remaining']).toBe('0');
      expectError(await call(tight.token, 'sendMessage', { chat_id: tightChat, text: 'over' }), 429, 'BOT_RATE_LIMIT');
      const late = await call(tight.token, 'sendMessage', body, key).expect(201);
      expect(late.text).toBe(first.text);
    });

    it('parallel identical keyed sends count one send: those turned away with 409 spend nothing', async () => {
      const burst = await createApprovedBot(ctx, 'dev-4', { username: 'burst_bot' });
      await db().query(`UPDATE bots SET rate_limits = '{"send_per_sec": 1000, "send_per_min": 50}' WHERE id = $1`, [
        burst.botId,
      ]);
      const chat = await privateChat(alice, burst.botId);
      const key = randomUUID();
      const body = { chat_id: chat, text: `burst ${key}` };
      const responses = await Promise.all(Array.from({ length: 8 }, () => call(burst.token, 'sendMessage', body, key)));
      expect(responses.filter((r) => r.status === 201 && !r.headers['idempotent-replayed'])).toHaveLength(1);
      const next = await call(burst.token, 'sendMessage', { chat_id: chat, text: 'next' }).expect(201);
      expect(next.headers['x-botratelimit-remaining']).toBe('48');
    });

    it('a keyed send refused by the quota is not stored: the same key sends once the window allows', async () => {
      const key = randomUUID();
      const body = { chat_id: tightChat, text: `after the window ${key}` };
      const refused = await call(tight.token, 'sendMessage', body, key);
      expectError(refused, 429, 'BOT_RATE_LIMIT');
      expect(refused.headers['retry-after']).toBeDefined();
      expect(await messagesWithText(tightChat, body.text)).toBe(0);
      await request(server())
        .patch(`/api/v1/bots/admin/bots/${tight.botId}`)
        .set('Authorization', `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`)
        .send({ rate_limits: { send_per_min: 100 } })
        .expect(200);
      const sent = await call(tight.token, 'sendMessage', body, key).expect(201);
      expect(sent.headers['idempotent-replayed']).toBeUndefined();
      expect(await messagesWithText(tightChat, body.text)).toBe(1);
    });
  });

  describe('media, media groups, edits, forwards and copies', () => {
    it('sendPhoto and sendMediaGroup replay their original answer and write their messages once', async () => {
      const photo = await insertFile(ctx, { botId: bot.botId, mimeType: 'image/jpeg', width: 10, height: 10 });
      const key = randomUUID();
      const single = { chat_id: aliceChat, file_id: photo, caption: `photo ${key}` };
      const first = await call(bot.token, 'sendPhoto', single, key).expect(201);
      const again = await call(bot.token, 'sendPhoto', single, key).expect(201);
      expect(again.text).toBe(first.text);
      expect(await messagesWithText(aliceChat, single.caption)).toBe(1);

      const groupKey = randomUUID();
      const caption = `group ${groupKey}`;
      const group = {
        chat_id: aliceChat,
        media: [
          { type: 'photo', file_id: photo, caption },
          { type: 'photo', file_id: photo, caption },
        ],
      };
      const sent = await call(bot.token, 'sendMediaGroup', group, groupKey).expect(201);
      expect(sent.body.data).toHaveLength(2);
      const replay = await call(bot.token, 'sendMediaGroup', group, groupKey).expect(201);
      expect(replay.text).toBe(sent.text);
      expect(await messagesWithText(aliceChat, caption)).toBe(2);
    });

    it('editMessage and editMessageReplyMarkup with a key replay the original answer and emit one edited_message', async () => {
      const sent = await call(bot.token, 'sendMessage', { chat_id: aliceChat, text: 'draft' }).expect(201);
      const messageId = sent.body.data.message_id;
      const editsBefore = await updatesOf(bot.botId, 'edited_message');
      const key = randomUUID();
      const edit = { message_id: messageId, text: `final ${key}` };
      const first = await call(bot.token, 'editMessage', edit, key).expect(200);
      // A later edit without the key changes the message; the keyed retry still answers what it did.
      await call(bot.token, 'editMessage', { message_id: messageId, text: 'changed later' }).expect(200);
      const retry = await call(bot.token, 'editMessage', edit, key).expect(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe(first.text);
      expect(await updatesOf(bot.botId, 'edited_message')).toBe(editsBefore + 2);
      const [row] = await db().query(`SELECT text FROM messages WHERE id = $1`, [messageId]);
      expect(row.text).toBe('changed later');

      const markupKey = randomUUID();
      const markup = {
        message_id: messageId,
        reply_markup: { inline_keyboard: [[{ text: 'Go', callback_data: 'go' }]] },
      };
      const marked = await call(bot.token, 'editMessageReplyMarkup', markup, markupKey).expect(200);
      expect(marked.body.data.reply_markup).toEqual(markup.reply_markup);
      const remarked = await call(bot.token, 'editMessageReplyMarkup', markup, markupKey).expect(200);
      expect(remarked.text).toBe(marked.text);
      expectError(
        await call(bot.token, 'editMessageReplyMarkup', { message_id: messageId, reply_markup: null }, markupKey),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });

    it('forwardMessage and copyMessage with a key replay the original answer and duplicate once', async () => {
      const text = `to pass on ${randomUUID()}`;
      const source = await call(bot.token, 'sendMessage', { chat_id: aliceChat, text }).expect(201);
      const ref = { chat_id: bobChat, from_chat_id: aliceChat, message_id: source.body.data.message_id };
      for (const method of ['forwardMessage', 'copyMessage']) {
        const key = randomUUID();
        const first = await call(bot.token, method, ref, key).expect(201);
        const retry = await call(bot.token, method, ref, key).expect(201);
        expect([method, retry.text, retry.headers['idempotent-replayed']]).toEqual([method, first.text, 'true']);
      }
      expect(await messagesWithText(bobChat, text)).toBe(2);
    });
  });

  describe('cost of the header', () => {
    const seen: string[] = [];
    const original = Client.prototype.query;

    beforeAll(() => {
      // Every statement of this process, the app's included, goes through pg's Client. Counted are
      // those of the app's data layer (TypeORM's pool); the coordination backend's own connections
      // (the PostgreSQL-only mode's rate limits, queues and channels) carry an application_name.
      Client.prototype.query = function (this: Client, ...args: unknown[]) {
        const [first] = args as [string | { text?: string; name?: string }];
        const coordination = (this as unknown as { connectionParameters?: { application_name?: string } })
          .connectionParameters?.application_name;
        // A hot-path statement run unnamed (behind a pooler) is known by the name it was declared with.
        const text = typeof first === 'string' ? first : (first?.text ?? '?');
        const name = typeof first === 'string' ? undefined : (first?.name ?? declaredNameOf(text));
        if (!coordination) seen.push(name ?? text);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof Client.prototype.query;
    });
    afterAll(() => {
      Client.prototype.query = original;
    });

    async function statementsOf(send: () => PromiseLike<unknown>): Promise<string[]> {
      await call(bot.token, 'sendMessage', { chat_id: aliceChat, text: 'warm the token cache' }).expect(201);
      seen.length = 0;
      await send();
      return [...seen];
    }

    it('without the header a sendMessage still runs its one statement and never touches the key table', async () => {
      const statements = await statementsOf(() =>
        call(bot.token, 'sendMessage', { chat_id: aliceChat, text: 'plain send' }).expect(201),
      );
      expect(statements).toEqual(['bot_api_message_insert_as_member']);
    });

    it('with the header the claim, the send and the stored answer share one transaction', async () => {
      const statements = await statementsOf(() =>
        call(bot.token, 'sendMessage', { chat_id: aliceChat, text: 'keyed send' }, randomUUID()).expect(201),
      );
      expect(statements).toEqual([
        'BEGIN',
        'idempotency_claim_in_transaction',
        'bot_api_message_insert_as_member',
        'idempotency_complete_key',
        'COMMIT',
      ]);
    });
  });
});
