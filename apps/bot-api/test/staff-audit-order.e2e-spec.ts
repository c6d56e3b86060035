import request from 'supertest';
import { BotTestContext, STAFF_ID, startBotApp } from './app-context';

const API = '/api/v1/bots/admin/deliveries';

describe('staff audit log order', () => {
  let ctx: BotTestContext;
  let staff: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    staff = await ctx.jwt(STAFF_ID, 'SRE', ['platform_admin']);
  });
  afterAll(() => ctx.close());

  const audit = async (query: string) => {
    const res = await request(ctx.app.getHttpServer())
      .get(`${API}/audit?${query}`)
      .set('Authorization', `Bearer ${staff}`)
      .expect(200);
    return res.body.data as { items: Array<{ id: string; created_at: string }>; next_cursor: string | null };
  };

  it('lists more than ten entries newest first by time and numeric id, on one page and across pages (defect 11: ids sorted as text)', async () => {
    for (let entry = 0; entry < 12; entry++) {
      await request(ctx.app.getHttpServer())
        .post(`${API}/redrives/dry-run`)
        .set('Authorization', `Bearer ${staff}`)
        .send({ bot_id: 'a'.repeat(24) })
        .expect(200);
    }
    const whole = (await audit('pageSize=50')).items;
    const ids = whole.map((entry) => Number(entry.id));
    expect(ids).toHaveLength(12);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const times = whole.map((entry) => Date.parse(entry.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await audit(`pageSize=5${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.items.map((entry) => entry.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(whole.map((entry) => entry.id));
  });
});
