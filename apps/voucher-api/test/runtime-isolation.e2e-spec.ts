import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  seedApplication,
  seedAuthorization,
  SeededApplication,
  startVoucherApp,
  VoucherTestContext,
} from './app-context';
import {
  activeTemplate,
  API,
  bearer,
  expectError,
  GENEROUS_RATE_LIMITS,
  issuedVoucher,
  redeemRequest,
  templateBody,
} from './runtime-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describe('tenant isolation of runtime routes', () => {
  let ctx: VoucherTestContext;
  let a: SeededApplication;
  let b: SeededApplication;
  let templateOfA: string;
  let draftOfA: string;
  let voucherOfA: { id: string; qrToken: string; code: string; userId: string };
  let redemptionOfA: string;
  let redeemedVoucherOfA: string;
  const server = () => ctx.app.getHttpServer();

  const snapshot = async () => {
    const db = ctx.app.get(DataSource);
    const [templates, vouchers, redemptions, reversals, keys] = await Promise.all([
      db.query(`SELECT * FROM templates WHERE application_id = $1 ORDER BY id`, [a.applicationId]),
      db.query(`SELECT * FROM vouchers WHERE application_id = $1 ORDER BY id`, [a.applicationId]),
      db.query(`SELECT * FROM redemptions WHERE application_id = $1 ORDER BY id`, [a.applicationId]),
      db.query(`SELECT * FROM reversals ORDER BY id`),
      db.query(`SELECT count(*)::int AS count FROM idempotency_keys WHERE scope = $1`, [a.applicationId]),
    ]);
    return JSON.stringify({ templates, vouchers, redemptions, reversals, keys });
  };

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    a = await seedApplication(ctx, { ownerId: 'owner-a', name: 'A' });
    b = await seedApplication(ctx, { ownerId: 'owner-b', name: 'B' });
    templateOfA = await activeTemplate(ctx, a, { per_user_limit: 10 });
    const draft = await request(server()).post(`${API}/vouchers/templates`).set(bearer(a.token)).send(templateBody());
    draftOfA = draft.body.data.id;
    voucherOfA = await issuedVoucher(ctx, a, templateOfA);
    const redeemed = await issuedVoucher(ctx, a, templateOfA);
    redeemedVoucherOfA = redeemed.id;
    const redemption = await redeemRequest(ctx, a, { type: 'qr_token', value: redeemed.qrToken }).expect(201);
    redemptionOfA = redemption.body.data.id;
    // The recipient consented to B as well, so only the template's owner decides the outcome.
    await seedAuthorization(ctx, voucherOfA.userId, b.applicationId);
  });
  afterAll(() => ctx.close());

  it("B's token gets 404 on every route naming A's template, voucher or redemption, and nothing of A changes", async () => {
    const before = await snapshot();
    const asB = (method: 'get' | 'post' | 'patch', path: string) =>
      request(server())[method](`${API}${path}`).set(bearer(b.token)).set('Idempotency-Key', randomUUID());

    const calls: Array<[string, () => Promise<request.Response>]> = [
      ['get template', () => asB('get', `/vouchers/templates/${templateOfA}`)],
      ['edit template', () => asB('patch', `/vouchers/templates/${draftOfA}`).send({ name: 'stolen' })],
      ['submit template', () => asB('post', `/vouchers/templates/${draftOfA}/submit`)],
      ['pause template', () => asB('post', `/vouchers/templates/${templateOfA}/pause`)],
      ['resume template', () => asB('post', `/vouchers/templates/${templateOfA}/resume`)],
      ['end template', () => asB('post', `/vouchers/templates/${templateOfA}/end`)],
      ['archive template', () => asB('post', `/vouchers/templates/${draftOfA}/archive`)],
      [
        'issue from template',
        () =>
          asB('post', '/vouchers/issue').send({
            template_id: templateOfA,
            external_issue_id: 'steal-1',
            recipient_user_id: voucherOfA.userId,
          }),
      ],
      ['revoke voucher', () => asB('post', `/vouchers/${voucherOfA.id}/revoke`)],
      [
        'verify by QR token',
        () => asB('post', '/vouchers/verify').send({ credential: { type: 'qr_token', value: voucherOfA.qrToken } }),
      ],
      [
        'verify by code',
        () => asB('post', '/vouchers/verify').send({ credential: { type: 'redeem_code', value: voucherOfA.code } }),
      ],
      [
        'redeem by QR token',
        () =>
          asB('post', '/vouchers/redeem').send({
            credential: { type: 'qr_token', value: voucherOfA.qrToken },
            external_order_id: 'steal',
          }),
      ],
      [
        'redeem by code',
        () =>
          asB('post', '/vouchers/redeem').send({
            credential: { type: 'redeem_code', value: voucherOfA.code },
            external_order_id: 'steal',
          }),
      ],
      ['get redemption', () => asB('get', `/vouchers/redemptions/${redemptionOfA}`)],
      ['reverse redemption', () => asB('post', `/vouchers/redemptions/${redemptionOfA}/reverse`).send({ reason: 'x' })],
    ];

    for (const [name, call] of calls) {
      const res = await call();
      try {
        expectError(res, 404, 'NOT_FOUND');
      } catch (error) {
        throw new Error(`${name}: ${res.status} ${res.text}\n${(error as Error).message}`);
      }
      expect(res.text).not.toContain(a.applicationId);
      // Rate-limit headers accompany error answers as well.
      expect(res.headers['x-ratelimit-limit']).toEqual(expect.any(String));
    }
    expect(await snapshot()).toBe(before);

    const listOfB = await request(server()).get(`${API}/vouchers/templates`).set(bearer(b.token)).expect(200);
    expect(listOfB.body.data).toEqual([]);
  });

  it("A's own token still reaches all of it", async () => {
    await request(server()).get(`${API}/vouchers/templates/${templateOfA}`).set(bearer(a.token)).expect(200);
    await request(server()).get(`${API}/vouchers/redemptions/${redemptionOfA}`).set(bearer(a.token)).expect(200);
    const verified = await request(server())
      .post(`${API}/vouchers/verify`)
      .set(bearer(a.token))
      .send({ credential: { type: 'redeem_code', value: voucherOfA.code } })
      .expect(200);
    expect(verified.body.data.voucher.id).toBe(voucherOfA.id);
    const [row] = await ctx.app
      .get(DataSource)
      .query(`SELECT status FROM vouchers WHERE id = $1`, [redeemedVoucherOfA]);
    expect(row.status).toBe('redeemed');
  });
});
