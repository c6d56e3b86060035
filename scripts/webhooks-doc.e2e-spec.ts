import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { UPDATE_TYPES } from '../apps/bot-api/src/update-types';
import {
  BotTestContext,
  callBot,
  createApprovedBot,
  ensureUsers,
  insertFile,
  startBotApp,
} from '../apps/bot-api/test/app-context';
import { codeBlocks, section } from './markdown';

const GUIDE = readFileSync(resolve(__dirname, '..', 'docs', 'webhooks.md'), 'utf8');
const BODY_SECTION = section(GUIDE, 'The body: one Update');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path of a JSON value with the type found there (`null` where the value is null). */
function shape(value: Json, path = ''): Map<string, string> {
  const found = new Map<string, string>();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    found.set(path || '.', 'object');
    for (const [key, inner] of Object.entries(value)) {
      for (const [p, t] of shape(inner, path ? `${path}.${key}` : key)) found.set(p, t);
    }
  } else {
    found.set(path, value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  }
  return found;
}

/** Differences between two shapes; a null on either side matches any type (nullable fields). */
function shapeDifferences(documented: Json, real: Json): string[] {
  const a = shape(documented);
  const b = shape(real);
  const differences: string[] = [];
  for (const [path, type] of a) {
    if (!b.has(path)) differences.push(`documented but not sent: ${path}`);
    else if (type !== b.get(path) && type !== 'null' && b.get(path) !== 'null') {
      differences.push(`${path}: documented ${type}, sent ${b.get(path)}`);
    }
  }
  for (const path of b.keys()) if (!a.has(path)) differences.push(`sent but not documented: ${path}`);
  return differences;
}

describe('the example Updates of docs/webhooks.md', () => {
  let ctx: BotTestContext;
  const sent = new Map<string, Json>();

  /** One real Update of every type the guide shows, produced through the client routes. */
  beforeAll(async () => {
    ctx = await startBotApp();
    const bot = await createApprovedBot(ctx, 'dev-docs', { username: 'quickstart_bot' });
    await callBot(ctx, bot.token, 'getUpdates', { allowed_updates: [...UPDATE_TYPES] }).expect(200);
    await ensureUsers(ctx, 'bob', 'carol');
    const jwt = { alice: await ctx.jwt('alice', 'Alice'), bob: await ctx.jwt('bob', 'Bob') };
    const carol = await ctx.jwt('carol', 'Carol');
    const as = (token: string) => ({
      post: (path: string, body: object = {}) =>
        request(ctx.app.getHttpServer())
          .post(`/api/v1/bots/client${path}`)
          .set('Authorization', `Bearer ${token}`)
          .send(body)
          .expect((res) => expect(res.status).toBeLessThan(300)),
      patch: (path: string, body: object) =>
        request(ctx.app.getHttpServer())
          .patch(`/api/v1/bots/client${path}`)
          .set('Authorization', `Bearer ${token}`)
          .send(body)
          .expect(200),
      delete: (path: string) =>
        request(ctx.app.getHttpServer())
          .delete(`/api/v1/bots/client${path}`)
          .set('Authorization', `Bearer ${token}`)
          .expect(200),
    });
    const alice = as(jwt.alice);

    const chatId = (await alice.post('/chats/private', { bot_id: bot.botId })).body.data.id;
    await callBot(ctx, bot.token, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    await as(jwt.bob).post(`/bots/${bot.botId}/friend-requests`, { message: 'Hi, add me?' });
    const text = (await alice.post(`/chats/${chatId}/messages`, { text: 'Hello bot' })).body.data.message_id;
    const photo = await insertFile(ctx, { userId: 'alice', mimeType: 'image/jpeg', width: 800, height: 600 });
    await alice.post(`/chats/${chatId}/messages`, { file_id: photo, text: 'my latte' });
    await alice.post(`/chats/${chatId}/messages`, { location: { latitude: 52.52, longitude: 13.405 } });
    await alice.patch(`/chats/${chatId}/messages/${text}`, { text: 'Hello, bot!' });
    await alice.delete(`/chats/${chatId}/messages/${text}`);
    const own = await callBot(ctx, bot.token, 'sendMessage', {
      chat_id: chatId,
      text: 'Pick one',
      reply_markup: { inline_keyboard: [[{ text: 'Latte', callback_data: 'order:latte' }]] },
    }).expect(201);
    await alice.post('/callback-queries', {
      chat_id: chatId,
      message_id: own.body.data.message_id,
      data: 'order:latte',
    });
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/my/${bot.botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-docs')}`)
      .send({ supports_inline_queries: true })
      .expect(200);
    await alice.post('/inline-queries', { bot_username: 'quickstart_bot', query: 'latte' });
    await alice.post(`/chats/${chatId}/messages/${own.body.data.message_id}/delivered`);
    await alice.post(`/chats/${chatId}/messages/${own.body.data.message_id}/read`);
    const group = (await alice.post('/chats', { type: 'group', title: 'Coffee club', member_ids: [bot.systemUserId] }))
      .body.data.id;
    await alice.patch(`/chats/${group}/members/${bot.systemUserId}`, { role: 'administrator' });
    await alice.post(`/chats/${group}/members`, { user_id: 'bob' });
    await as(carol).post(`/chats/${group}/join-requests`);

    const updates = (await callBot(ctx, bot.token, 'getUpdates', {}).expect(200)).body.data as Array<
      Record<string, Json>
    >;
    // The webhook body is the stored Update; update_seq is added by getUpdates only.
    const stored: Array<{ payload: Record<string, Json> }> = await ctx.app
      .get(DataSource)
      .query(`SELECT payload FROM updates WHERE bot_id = $1 ORDER BY update_seq`, [bot.botId]);
    expect(stored.map((row) => row.payload.update_id)).toEqual(updates.map((update) => update.update_id));
    for (const { payload } of stored) sent.set(payload.type as string, payload);
  });
  afterAll(() => ctx?.close());

  const examples = codeBlocks(BODY_SECTION)
    .filter((block) => block.lang === 'json')
    .map((block) => JSON.parse(block.code) as Record<string, Json>);

  it('name every Update type of the service in a heading', () => {
    const headings = BODY_SECTION.split('\n').filter((line) => line.startsWith('#### '));
    const named = headings.flatMap((line) => [...line.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    expect([...named].sort()).toEqual([...UPDATE_TYPES].sort());
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });

  it.each(examples.map((example) => [example.type as string, example]))(
    'shows %s with exactly the fields and types the service sends',
    (type, example) => {
      expect(sent.has(type)).toBe(true);
      expect(shapeDifferences(example, sent.get(type)!)).toEqual([]);
    },
  );
});
