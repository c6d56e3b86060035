import request from 'supertest';
import { DataSource } from 'typeorm';
import { seedApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, GENEROUS_RATE_LIMITS, templateBody } from './runtime-fixtures';

/** Security review, defect 8: malformed input that used to answer 500 gets a 400 in the envelope. */
describe('hostile request bodies', () => {
  let ctx: VoucherTestContext;
  let token: string;
  const server = () => ctx.app.getHttpServer();

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    token = (await seedApplication(ctx)).token;
  });
  afterAll(() => ctx.close());

  const templateCount = async () =>
    Number((await ctx.app.get(DataSource).query(`SELECT count(*) AS n FROM templates`))[0].n);

  it('defect 8: refuses a JSON body nested 10,000 levels deep with 400 VALIDATION_FAILED, not 500', async () => {
    const before = await templateCount();
    const body = JSON.stringify(templateBody()).replace(/}$/, `,"extra":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    const res = await request(server())
      .post(`${API}/vouchers/templates`)
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 400, error: { code: 'VALIDATION_FAILED' } });
    expect(await templateCount()).toBe(before);
  });

  it('defect 8: lists at most 20 problems of a body with thousands of unknown fields', async () => {
    const extra = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`unknown_${i}`, i]));
    const res = await request(server())
      .post(`${API}/vouchers/templates`)
      .set(bearer(token))
      .send({ ...templateBody(), ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveLength(20);
    expect(res.body.message).toMatch(/and 9980 more/);
  });
});
