import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApprovedBot, BotTestContext, createApprovedBot, startBotApp } from './app-context';

jest.setTimeout(60_000);

/** Stripe's rule: a send that fails validation saves nothing under its Idempotency-Key. */
describe('a keyed send refused by validation', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let chatId: string;

  beforeAll(async () => {
    ctx = await startBotApp({ REDRIVE_WORKER_ENABLED: 'false' });
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'validated_bot' });
    const alice = await ctx.jwt('alice', 'Alice');
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    chatId = chat.body.data.id as string;
  });
  afterAll(() => ctx.close());

  const send = (body: object, key: string) =>
    request(ctx.app.getHttpServer())
      .post('/api/v1/bots/sendMessage')
      .set('Authorization', `Bearer ${bot.token}`)
      .set('Idempotency-Key', key)
      .send(body);

  it('stores nothing: the corrected retry with the same key sends the message', async () => {
    const key = randomUUID();
    const refused = await send({ chat_id: chatId, text: 'hello', not_a_field: true }, key);
    expect(refused.status).toBe(400);
    const stored = await ctx.app.get(DataSource).query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key]);
    expect(stored).toHaveLength(0);

    const corrected = await send({ chat_id: chatId, text: `corrected ${key}` }, key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });
});
