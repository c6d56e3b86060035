import request from 'supertest';
import { BotTestContext, STAFF_ID, startBotApp } from './app-context';

const DRY_RUN = '/api/v1/bots/admin/deliveries/redrives/dry-run';

describe('staff routes driven from another site', () => {
  let ctx: BotTestContext;
  let staff: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    staff = `Bearer ${await ctx.jwt(STAFF_ID, 'SRE', ['platform_admin'])}`;
  });
  afterAll(() => ctx.close());

  const dryRun = () => request(ctx.app.getHttpServer()).post(DRY_RUN).set('Authorization', staff);

  it("refuses an empty form POST from another site's page, as a proxy that injects the operator's Authorization would send it (defect 5: it answered 200)", async () => {
    const res = await dryRun()
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 415, code: expect.any(String) });
    const withJson = await dryRun()
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ all_bots: true });
    expect({ status: withJson.status, code: withJson.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
  });

  it('refuses a state-changing call whose Content-Type is a form, text or anything but JSON, even with an empty body (defect 5)', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain']) {
      const res = await dryRun().set('Content-Type', type);
      expect({ type, status: res.status }).toEqual({ type, status: 415 });
    }
  });

  it('refuses a call whose Origin names another host when Sec-Fetch-Site is absent, and accepts the same origin and non-browser calls (defect 5)', async () => {
    const foreign = await dryRun().set('Origin', 'https://evil.example').send({ all_bots: true });
    expect(foreign.status).toBe(403);
    const opaque = await dryRun().set('Origin', 'null').send({ all_bots: true });
    expect(opaque.status).toBe(403);
    const sameSite = await dryRun().set('Sec-Fetch-Site', 'same-site').send({ all_bots: true });
    expect(sameSite.status).toBe(403);
    const host = 'bots.example.test';
    await dryRun().set('Host', host).set('Origin', `https://${host}`).send({ all_bots: true }).expect(200);
    await dryRun().set('Sec-Fetch-Site', 'same-origin').send({ all_bots: true }).expect(200);
    await dryRun().send({ all_bots: true }).expect(200);
  });

  it('takes "every bot" only as all_bots: true, never as the meaning of an empty filter (defect 5)', async () => {
    const empty = await dryRun().send({});
    expect({ status: empty.status, code: empty.body.code }).toEqual({ status: 400, code: 'VALIDATION' });
    expect((await dryRun()).status).toBe(400);
    expect((await dryRun().send({ all_bots: true, bot_id: 'a'.repeat(24) })).status).toBe(400);
    expect((await dryRun().send({ all_bots: false })).status).toBe(400);
    const everyBot = await dryRun().send({ all_bots: true }).expect(200);
    expect(everyBot.body.data).toMatchObject({ would_redeliver: 0, filter: { bot_id: null } });
    await dryRun()
      .send({ bot_id: 'a'.repeat(24) })
      .expect(200);
  });
});
