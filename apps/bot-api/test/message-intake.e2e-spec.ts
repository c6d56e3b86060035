import request from 'supertest';
import { DataSource } from 'typeorm';
import { uuidV5, UPDATE_ID_NAMESPACE } from '../src/updates/update-id';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

/** A person's message, its Updates and its webhook deliveries are written together, once each. */
describe('message intake writes', () => {
  let ctx: BotTestContext;
  let hooked: ApprovedBot;
  let polled: ApprovedBot;
  let groupId: string;
  let db: DataSource;

  beforeAll(async () => {
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    db = ctx.app.get(DataSource);
    hooked = await createApprovedBot(ctx, 'dev-1', { username: 'hooked_bot' });
    polled = await createApprovedBot(ctx, 'dev-2', { username: 'polled_bot' });
    // No dispatcher runs here: deliveries stay pending, so their rows can be counted.
    await callBot(ctx, hooked.token, 'setWebhook', {
      url: 'https://127.0.0.1:9/hook',
      secret_token: 'secret-1',
    }).expect(200);
    await ensureUsers(ctx, 'bob');
    const group = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${await ctx.jwt('alice', 'Alice')}`)
      .send({ type: 'group', title: 'Intake', member_ids: ['bob', hooked.systemUserId, polled.systemUserId] })
      .expect(201);
    groupId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  const postAs = async (user: string, chatId: string, body: object) =>
    request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt(user)}`)
      .send(body);

  it('writes one Update per bot and one delivery for the webhook bot, for each of many parallel messages', async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => postAs(i % 2 ? 'alice' : 'bob', groupId, { text: `/cmd ${i}` })),
    );
    expect(results.map((res) => res.status)).toEqual(Array(16).fill(201));
    const ids = results.map((res) => res.body.data.message_id as number);
    expect(new Set(ids).size).toBe(16);
    const updates: Array<{ update_id: string; bot_id: string; message_id: string; date: number }> = await db.query(
      `SELECT update_id, bot_id, payload->'message'->>'message_id' AS message_id,
              (payload->'message'->>'date')::bigint AS date
         FROM updates WHERE bot_id = ANY($1) AND type = 'message'`,
      [[hooked.botId, polled.botId]],
    );
    expect(updates).toHaveLength(32);
    for (const update of updates) {
      expect(update.update_id).toBe(uuidV5(`${update.bot_id}:${update.message_id}:message`, UPDATE_ID_NAMESPACE));
    }
    const deliveries: Array<{ update_id: string }> = await db.query(
      `SELECT update_id FROM webhook_deliveries WHERE bot_id = $1`,
      [hooked.botId],
    );
    expect(deliveries.map((row) => row.update_id).sort()).toEqual(
      updates
        .filter((u) => u.bot_id === hooked.botId)
        .map((u) => u.update_id)
        .sort(),
    );
    // The Update carries the message's own time, as the message list shows it.
    const listed = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt('alice')}`)
      .expect(200);
    const dateOf = new Map(
      listed.body.data.items.map((m: { message_id: number; date: number }) => [m.message_id, m.date]),
    );
    for (const update of updates) expect(dateOf.get(Number(update.message_id))).toBe(Number(update.date));
  });

  it("records a message's Updates and delivery at the message's own time, and its edit's Update at the edit's", async () => {
    const posted = await postAs('bob', groupId, { text: '/cmd dated' });
    expect(posted.status).toBe(201);
    const messageId = posted.body.data.message_id as number;
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/client/chats/${groupId}/messages/${messageId}`)
      .set('Authorization', `Bearer ${await ctx.jwt('bob')}`)
      .send({ text: '/cmd dated again' })
      .expect(200);

    const rows: Array<{ type: string; at_message: boolean; after_message: boolean; delivery_same: boolean | null }> =
      await db.query(
        `SELECT u.type, u.created_at = m.created_at AS at_message, u.created_at > m.created_at AS after_message,
                d.created_at = u.created_at AS delivery_same
           FROM updates u
           JOIN messages m ON m.id = (u.payload->'message'->>'message_id')::bigint
           LEFT JOIN webhook_deliveries d ON d.update_id = u.update_id
          WHERE m.id = $1 AND u.bot_id = $2
          ORDER BY u.update_seq`,
        [messageId, hooked.botId],
      );
    // The posted message's Update is the event its derived id names; an edit is a new event, at its own time.
    expect(rows).toEqual([
      { type: 'message', at_message: true, after_message: false, delivery_same: true },
      { type: 'edited_message', at_message: false, after_message: true, delivery_same: true },
    ]);
  });

  it('writes nothing for a person who is not a member, and nothing for a reply to another chat', async () => {
    const before: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM updates`);
    const outsider = await postAs('mallory', groupId, { text: '/sneak' });
    expect(outsider.status).toBe(404);
    const other = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${await ctx.jwt('alice')}`)
      .send({ bot_id: polled.botId })
      .expect(201);
    const elsewhere = await postAs('alice', other.body.data.id, { text: 'hi' });
    const crossReply = await postAs('alice', groupId, {
      text: '/x',
      reply_to_message_id: elsewhere.body.data.message_id,
    });
    expect(crossReply.status).toBe(404);
    const after: Array<{ n: string }> = await db.query(`SELECT count(*) AS n FROM updates`);
    // Only the private message to the polled bot added an Update.
    expect(Number(after[0].n)).toBe(Number(before[0].n) + 1);
  });
});
