import request from 'supertest';
import { DataSource } from 'typeorm';
import { VirtualMemberAuditPurgeService } from '../src/virtual-members/virtual-member-audit-purge.service';
import { BotTestContext, callBot, createApprovedBot, STAFF_ID, startBotApp } from './app-context';

describe('virtual-member audit log: what a refused bot can make it hold', () => {
  let ctx: BotTestContext;
  let db: DataSource;

  beforeAll(async () => {
    ctx = await startBotApp({
      VIRTUAL_MEMBER_AUDIT_REFUSALS_PER_MINUTE: '5',
      VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS: '30',
    });
    db = ctx.app.get(DataSource);
  });
  afterAll(() => ctx.close());

  it('stores a bounded summary of at most the per-minute number of refusals of a disabled bot (defect 4: 20 refusals wrote 20 bodies of 1 MB)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1', { username: 'refused_bot' });
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/admin/bots/${bot.botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`)
      .send({ status: 'disabled' })
      .expect(200);
    const bulky = {
      chat_id: 'c'.repeat(300_000),
      name: Array.from({ length: 20_000 }, (_, i) => `name-${i}`),
      ['x'.repeat(200_000)]: 1,
    };
    for (let call = 0; call < 20; call++) {
      const refused = await callBot(ctx, bot.token, 'createChatVirtualMember', bulky);
      expect(refused.status).toBe(403);
    }
    const rows: Array<{ bytes: number }> = await db.query(
      `SELECT octet_length(request::text) + coalesce(octet_length(chat_id), 0) AS bytes
         FROM virtual_member_audit_log WHERE bot_id = $1`,
      [bot.botId],
    );
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.bytes).toBeLessThan(2048);
  });

  it('purges entries older than VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS and keeps younger ones (defect 4: no retention)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-2', { username: 'old_entries_bot' });
    await db.query(
      `INSERT INTO virtual_member_audit_log (bot_id, action, outcome, request, created_at)
       SELECT $1, 'list', 'refused', '{}'::jsonb, now() - make_interval(days => d) FROM unnest(ARRAY[1, 29, 31, 400]) AS d`,
      [bot.botId],
    );
    await ctx.app.get(VirtualMemberAuditPurgeService).purge();
    const left: Array<{ days: number }> = await db.query(
      `SELECT round(extract(epoch FROM now() - created_at) / 86400)::int AS days
         FROM virtual_member_audit_log WHERE bot_id = $1 ORDER BY created_at DESC`,
      [bot.botId],
    );
    expect(left.map((row) => row.days)).toEqual([1, 29]);
  });
});
