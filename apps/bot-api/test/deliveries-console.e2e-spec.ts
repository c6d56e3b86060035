import request from 'supertest';
import { DataSource } from 'typeorm';
import { LARGE_TOTAL } from '../src/deliveries/deliveries.service';
import { ApprovedBot, BotTestContext, createApprovedBot, startBotApp } from './app-context';

/** GET /my/:botId/deliveries: newest first, paged, with an exact total for ordinary logs. */
describe('deliveries console list', () => {
  let ctx: BotTestContext;
  let db: DataSource;

  beforeAll(async () => {
    ctx = await startBotApp();
    db = ctx.app.get(DataSource);
  });
  afterAll(() => ctx.close());

  /** Delivery rows as the outbox leaves them, update_seq 1..n; every third a dead letter. */
  async function seed(bot: ApprovedBot, n: number, firstSeq = 1): Promise<void> {
    await db.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, dead_letter_at)
       SELECT $1, g, gen_random_uuid(), 'message', '{}'::jsonb,
              CASE WHEN g % 3 = 0 THEN 'dead_letter' ELSE 'pending' END,
              CASE WHEN g % 3 = 0 THEN now() END
         FROM generate_series($2::int, $2::int + $3::int - 1) AS g`,
      [bot.botId, firstSeq, n],
    );
  }
  const list = async (owner: string, botId: string, query = '') =>
    request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/my/${botId}/deliveries${query}`)
      .set('Authorization', `Bearer ${await ctx.jwt(owner)}`);
  const ok = async (owner: string, botId: string, query = '') => {
    const res = await list(owner, botId, query);
    expect(res.status).toBe(200);
    return res;
  };
  const seqs = async (botId: string, ids: string[]) => {
    const rows: Array<{ update_id: string; update_seq: string }> = await db.query(
      `SELECT update_id, update_seq FROM webhook_deliveries WHERE bot_id = $1`,
      [botId],
    );
    const seqOf = new Map(rows.map((row) => [row.update_id, Number(row.update_seq)]));
    return ids.map((id) => seqOf.get(id));
  };

  it('pages newest first with exact totals, with and without a status filter', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1');
    await seed(bot, 7);
    const all = await ok('dev-1', bot.botId);
    expect(all.body.data).toMatchObject({ total: 7, page: 1, pageSize: 20 });
    expect(
      await seqs(
        bot.botId,
        all.body.data.items.map((d: { update_id: string }) => d.update_id),
      ),
    ).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const second = await ok('dev-1', bot.botId, '?page=2&pageSize=3');
    expect(second.body.data).toMatchObject({ total: 7, page: 2, pageSize: 3 });
    expect(
      await seqs(
        bot.botId,
        second.body.data.items.map((d: { update_id: string }) => d.update_id),
      ),
    ).toEqual([4, 3, 2]);
    const dead = await ok('dev-1', bot.botId, '?status=dead_letter&pageSize=1');
    expect(dead.body.data.total).toBe(2);
    expect(dead.body.data.items[0]).toMatchObject({ status: 'dead_letter', dead_letter_at: expect.any(String) });
    const beyond = await ok('dev-1', bot.botId, '?page=9');
    expect(beyond.body.data).toMatchObject({ items: [], total: 7 });
  });

  it('pages the newest day first and by sequence within a day, as the partitioned log is read', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1');
    await seed(bot, 5);
    // Sequences 4 and 5 of a day before (an Update's time is its event's): the day orders first.
    await db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '2 days' WHERE bot_id = $1 AND update_seq >= 4`,
      [bot.botId],
    );
    const all = await ok('dev-1', bot.botId);
    const order = await seqs(
      bot.botId,
      all.body.data.items.map((d: { update_id: string }) => d.update_id),
    );
    expect(order).toEqual([3, 2, 1, 5, 4]);
    const second = await ok('dev-1', bot.botId, '?page=2&pageSize=2');
    expect(
      await seqs(
        bot.botId,
        second.body.data.items.map((d: { update_id: string }) => d.update_id),
      ),
    ).toEqual([1, 5]);
  });

  it('answers 404 for a bot of another developer and an empty page for a bot without deliveries', async () => {
    const bot = await createApprovedBot(ctx, 'dev-2');
    expect((await list('someone-else', bot.botId)).status).toBe(404);
    expect((await list('dev-2', 'ffffffffffffffffffffffff')).status).toBe(404);
    const empty = await ok('dev-2', bot.botId);
    expect(empty.body.data).toMatchObject({ items: [], total: 0 });
  });

  it('counts a short log exactly on every call, and a long one at most a few seconds late', async () => {
    const bot = await createApprovedBot(ctx, 'dev-3');
    await seed(bot, 30);
    expect((await ok('dev-3', bot.botId)).body.data.total).toBe(30);
    await seed(bot, 1, 31);
    expect((await ok('dev-3', bot.botId)).body.data.total).toBe(31);

    await seed(bot, LARGE_TOTAL, 32);
    const large = await ok('dev-3', bot.botId);
    expect(large.body.data.total).toBe(LARGE_TOTAL + 31);
    expect(large.body.data.items).toHaveLength(20);
    await seed(bot, 1, LARGE_TOTAL + 32);
    const soon = await ok('dev-3', bot.botId);
    expect([LARGE_TOTAL + 31, LARGE_TOTAL + 32]).toContain(soon.body.data.total);
    // The newest row is listed at once, whatever the total says.
    expect(await seqs(bot.botId, [soon.body.data.items[0].update_id])).toEqual([LARGE_TOTAL + 32]);
  });
});
