import { readinessInfo } from '@app/testing';
import request from 'supertest';
import { BotTestContext, callBot, createApprovedBot, openPrivateChat, pollsWaiting, startBotApp } from './app-context';

/** The PostgreSQL-only mode needs no Redis at all: here REDIS_URL points at a port where nothing listens. */
describe('bot-api in the PostgreSQL-only mode with no Redis reachable', () => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp({
      COORDINATION_BACKEND: 'postgres',
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMITS: 'client.write=3',
    });
  });
  afterAll(() => ctx.close());

  it('boots and reports ready, naming the mode and checking no Redis', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.info).toEqual(readinessInfo('postgres'));
  });

  it('limits, wakes a long poll and shows chat actions without Redis', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1', { username: 'no_redis_bot' });
    const alice = await ctx.jwt('alice', 'Alice');
    const chatId = await openPrivateChat(ctx, alice, bot.botId);
    const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 0 }).expect(200);
    const pending = (await poll).body.data as { update_seq: number }[];
    const offset = (pending.at(-1)?.update_seq ?? 0) + 1;

    const waiting = callBot(ctx, bot.token, 'getUpdates', { offset, timeout: 20 }).then((res) => res);
    await pollsWaiting(ctx.app);
    const post = (text: string) =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client/chats/${chatId}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .send({ text });
    const posted = await post('hello');
    expect(posted.status).toBe(201);
    const started = Date.now();
    const woken = await waiting;
    expect(woken.body.data.map((update: { message?: { text: string } }) => update.message?.text)).toEqual(['hello']);
    // Well before the 5 s re-read: the NOTIFY woke it.
    expect(Date.now() - started).toBeLessThan(2000);

    await callBot(ctx, bot.token, 'sendChatAction', { chat_id: chatId, action: 'typing' }).expect(200);
    const list = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${chatId}/messages?pageSize=1`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    expect(list.body.data.chat_actions).toEqual([expect.objectContaining({ action: 'typing' })]);

    // client.write=3: opening the chat and the message used two, so the third passes and the fourth is refused.
    expect((await post('third')).status).toBe(201);
    const refused = await post('fourth');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
  });
});
