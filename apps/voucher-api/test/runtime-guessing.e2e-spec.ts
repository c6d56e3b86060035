import { describeEachBackend } from '@app/testing';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import {
  activeTemplate,
  API,
  bearer,
  expectError,
  GENEROUS_RATE_LIMITS,
  issuedVoucher,
  redeemRequest,
} from './runtime-fixtures';

/** Failed credential look-ups lock a token out of verify and redeem (the guessing lock-out's counters). */
describeEachBackend('runtime guessing protection', (backend) => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;
  const server = () => ctx.app.getHttpServer();
  const db = () => ctx.app.get(DataSource);
  const verify = (credential: { type: string; value: string }, token = app.token) =>
    request(server()).post(`${API}/vouchers/verify`).set(bearer(token)).send({ credential });

  beforeAll(async () => {
    ctx = await startVoucherApp({ ...GENEROUS_RATE_LIMITS, COORDINATION_BACKEND: backend });
    app = await seedApplication(ctx);
    templateId = await activeTemplate(ctx, app);
  });
  afterAll(() => ctx.close());

  it('after 20 failed look-ups in the window the token gets 429 on verify and redeem; other tokens are unaffected', async () => {
    const guesser = await seedApplication(ctx, { ownerId: 'owner-guess' });
    const target = await issuedVoucher(ctx, app, templateId);
    for (let i = 0; i < 20; i++) {
      expectError(await verify({ type: 'redeem_code', value: 'ZZZZZZ' }, guesser.token), 404, 'NOT_FOUND');
    }
    const locked = await verify({ type: 'redeem_code', value: 'ZZZZZZ' }, guesser.token);
    expectError(locked, 429, 'RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const redeemKey = randomUUID();
    const redeem = await redeemRequest(ctx, guesser, { type: 'redeem_code', value: 'ZZZZZZ' }, redeemKey);
    expectError(redeem, 429, 'RATE_LIMITED');
    const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM idempotency_keys WHERE key = $1`, [
      redeemKey,
    ]);
    expect(count).toBe(0);
    // Reads are not locked, and the application's other token is not locked.
    await request(server()).get(`${API}/me`).set(bearer(guesser.token)).expect(200);
    await verify({ type: 'qr_token', value: target.qrToken }).expect(200);
  });

  it('counts failed redeem look-ups too', async () => {
    const guesser = await seedApplication(ctx, { ownerId: 'owner-guess-2' });
    for (let i = 0; i < 20; i++) {
      expectError(await redeemRequest(ctx, guesser, { type: 'qr_token', value: `vq_${i}` }), 404, 'NOT_FOUND');
    }
    expectError(await verify({ type: 'qr_token', value: 'vq_x' }, guesser.token), 429, 'RATE_LIMITED');
  });
});
