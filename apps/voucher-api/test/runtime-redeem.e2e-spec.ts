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

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describe('runtime verify, redeem, get redemption and reverse', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;
  const server = () => ctx.app.getHttpServer();
  const db = () => ctx.app.get(DataSource);
  const verify = (credential: { type: string; value: string }, token = app.token) =>
    request(server()).post(`${API}/vouchers/verify`).set(bearer(token)).send({ credential });
  const reverse = (redemptionId: string, key = randomUUID(), body: Record<string, unknown> = {}) =>
    request(server())
      .post(`${API}/vouchers/redemptions/${redemptionId}/reverse`)
      .set(bearer(app.token))
      .set('Idempotency-Key', key)
      .send(body);
  const getRedemption = (id: string) =>
    request(server()).get(`${API}/vouchers/redemptions/${id}`).set(bearer(app.token));
  const setValidity = (voucherId: string, from: string, to: string) =>
    db().query(`UPDATE vouchers SET valid_from = $2, valid_to = $3 WHERE id = $1`, [voucherId, from, to]);

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
    templateId = await activeTemplate(ctx, app);
  });
  afterAll(() => ctx.close());

  describe('verify', () => {
    it('finds a voucher by QR token and returns data.voucher with its current status, redeeming nothing', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const res = await verify({ type: 'qr_token', value: v.qrToken }).expect(200);
      expect(res.body).toMatchObject({ success: true, code: 200, message: 'OK' });
      expect(new Date(res.body.meta.timestamp).toISOString()).toBe(res.body.meta.timestamp);
      expect(res.body.meta.duration).toMatch(/^\d+ms$/);
      expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
      expect(res.body.data.voucher).toMatchObject({ id: v.id, status: 'available', template_id: templateId });
      expect(res.body.data.redeemable).toBe(true);
      expect(res.text).not.toContain(v.code);
      expect(res.text).not.toContain(v.qrToken);
      const [row] = await db().query(`SELECT status FROM vouchers WHERE id = $1`, [v.id]);
      expect(row.status).toBe('available');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM redemptions WHERE voucher_id = $1`, [
        v.id,
      ]);
      expect(count).toBe(0);
    });

    it('matches a code ignoring case, spaces and hyphens', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const spaced = `${v.code.slice(0, 3).toLowerCase()}- ${v.code.slice(3)}`;
      for (const value of [v.code, v.code.toLowerCase(), spaced, ` ${v.code.split('').join(' ')} `]) {
        const res = await verify({ type: 'redeem_code', value }).expect(200);
        expect(res.body.data.voucher.id).toBe(v.id);
      }
    });

    it('marks an available voucher past its validity as expired', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      await setValidity(v.id, '2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z');
      const res = await verify({ type: 'qr_token', value: v.qrToken }).expect(200);
      expect(res.body.data.voucher.status).toBe('expired');
      expect(res.body.data.redeemable).toBe(false);
      const [row] = await db().query(`SELECT status FROM vouchers WHERE id = $1`, [v.id]);
      expect(row.status).toBe('expired');
    });

    it('reports a redeemed voucher as redeemed, and a verify never replaces the redeem result', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }).expect(201);
      const res = await verify({ type: 'redeem_code', value: v.code }).expect(200);
      expect(res.body.data.voucher).toMatchObject({ id: v.id, status: 'redeemed' });
      expect(res.body.data.voucher.redeemed_at).toEqual(expect.any(String));
    });

    it('answers 404 for an unknown credential and 400 for a malformed credential object', async () => {
      expectError(await verify({ type: 'qr_token', value: 'vq_unknown' }), 404, 'NOT_FOUND');
      expectError(await verify({ type: 'redeem_code', value: 'ZZZZZZ' }), 404, 'NOT_FOUND');
      expectError(await verify({ type: 'barcode', value: 'x' }), 400, 'VALIDATION_FAILED');
      expectError(await verify({ type: 'qr_token', value: '' }), 400, 'VALIDATION_FAILED');
      const missing = await request(server()).post(`${API}/vouchers/verify`).set(bearer(app.token)).send({});
      expectError(missing, 400, 'VALIDATION_FAILED');
    });
  });

  describe('redeem', () => {
    it('redeems an available voucher: 201 with the redemption, the voucher is redeemed and a record exists', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const res = await redeemRequest(ctx, app, { type: 'redeem_code', value: v.code }, randomUUID(), {
        external_order_id: 'ORD-1',
        store_id: 'store-9',
        operator_id: 'op-7',
        occurred_at: '2026-11-21T10:00:00Z',
      }).expect(201);
      expect(res.body).toMatchObject({ success: true, code: 201 });
      expect(res.body.data).toMatchObject({
        id: expect.any(String),
        voucher_id: v.id,
        external_order_id: 'ORD-1',
        store_id: 'store-9',
        operator_id: 'op-7',
        occurred_at: '2026-11-21T10:00:00.000Z',
        status: 'succeeded',
        reversal: null,
        voucher: { id: v.id, status: 'redeemed' },
      });
      const [row] = await db().query(`SELECT status FROM redemptions WHERE id = $1`, [res.body.data.id]);
      expect(row.status).toBe('succeeded');
    });

    it('defaults occurred_at to the server time', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const before = Date.now();
      const res = await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }).expect(201);
      expect(Date.parse(res.body.data.occurred_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(res.body.data.occurred_at)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('answers 409 VOUCHER_ALREADY_REDEEMED for a second redeem with a new key', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }).expect(201);
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }),
        409,
        'VOUCHER_ALREADY_REDEEMED',
      );
    });

    it('answers 409 VOUCHER_NOT_REDEEMABLE for a voucher not yet in effect, expired or revoked', async () => {
      const early = await issuedVoucher(ctx, app, templateId);
      await setValidity(early.id, '2098-01-01T00:00:00Z', '2099-01-01T00:00:00Z');
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: early.qrToken }),
        409,
        'VOUCHER_NOT_REDEEMABLE',
      );
      const late = await issuedVoucher(ctx, app, templateId);
      await setValidity(late.id, '2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z');
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: late.qrToken }),
        409,
        'VOUCHER_NOT_REDEEMABLE',
      );
      await verify({ type: 'qr_token', value: late.qrToken }).expect(200);
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: late.qrToken }),
        409,
        'VOUCHER_NOT_REDEEMABLE',
      );
      const revoked = await issuedVoucher(ctx, app, templateId);
      await request(server()).post(`${API}/vouchers/${revoked.id}/revoke`).set(bearer(app.token)).expect(200);
      expectError(
        await redeemRequest(ctx, app, { type: 'redeem_code', value: revoked.code }),
        409,
        'VOUCHER_NOT_REDEEMABLE',
      );
      const [{ count }] = await db().query(
        `SELECT count(*)::int AS count FROM redemptions WHERE voucher_id = ANY($1)`,
        [[early.id, late.id, revoked.id]],
      );
      expect(count).toBe(0);
    });

    it('answers 400 without an Idempotency-Key or external_order_id, 404 for an unknown credential', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const noKey = await request(server())
        .post(`${API}/vouchers/redeem`)
        .set(bearer(app.token))
        .send({ credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'o' });
      expectError(noKey, 400, 'VALIDATION_FAILED');
      const noOrder = await request(server())
        .post(`${API}/vouchers/redeem`)
        .set(bearer(app.token))
        .set('Idempotency-Key', randomUUID())
        .send({ credential: { type: 'qr_token', value: v.qrToken } });
      expectError(noOrder, 400, 'VALIDATION_FAILED');
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }, randomUUID(), {
          occurred_at: 'yesterday',
        }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await redeemRequest(ctx, app, { type: 'qr_token', value: 'vq_nope' }), 404, 'NOT_FOUND');
      expectError(
        await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }, randomUUID(), { store_id: 's\u0000' }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('replays the byte-identical body for the same key and body; another body with that key gets 409', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const key = randomUUID();
      const body = { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'ORD-IDEM' };
      const send = (payload: Record<string, unknown>) =>
        request(server())
          .post(`${API}/vouchers/redeem`)
          .set(bearer(app.token))
          .set('Idempotency-Key', key)
          .send(payload);
      const first = await send(body).expect(201);
      const replay = await send(body).expect(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expectError(await send({ ...body, external_order_id: 'ORD-OTHER' }), 409, 'IDEMPOTENCY_KEY_REUSED');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM redemptions WHERE voucher_id = $1`, [
        v.id,
      ]);
      expect(count).toBe(1);
    });

    it('parallel retries with one key redeem once: each gets the original 201 or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const key = randomUUID();
      const body = { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'ORD-RETRY' };
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          request(server())
            .post(`${API}/vouchers/redeem`)
            .set(bearer(app.token))
            .set('Idempotency-Key', key)
            .send(body),
        ),
      );
      const created = responses.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.data.id)).size).toBe(1);
      for (const res of responses.filter((r) => r.status !== 201)) {
        expectError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(res.headers['retry-after']).toEqual(expect.any(String));
      }
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM redemptions WHERE voucher_id = $1`, [
        v.id,
      ]);
      expect(count).toBe(1);
    });

    it('after a 5xx nothing is redeemed and a retry with the original key and body runs again', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      await db().query(`
        CREATE FUNCTION fail_marked_redemption() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.external_order_id = 'ORD-5XX' THEN RAISE EXCEPTION 'simulated outage'; END IF;
          RETURN NEW;
        END $$`);
      await db().query(
        `CREATE TRIGGER fail_marked_redemption BEFORE INSERT ON redemptions
           FOR EACH ROW EXECUTE FUNCTION fail_marked_redemption()`,
      );
      const key = randomUUID();
      const body = { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'ORD-5XX' };
      const send = () =>
        request(server()).post(`${API}/vouchers/redeem`).set(bearer(app.token)).set('Idempotency-Key', key).send(body);
      try {
        const failed = await send();
        expectError(failed, 500, 'INTERNAL_ERROR');
        expect(failed.text).not.toContain('simulated outage');
        const [row] = await db().query(`SELECT status FROM vouchers WHERE id = $1`, [v.id]);
        expect(row.status).toBe('available');
      } finally {
        await db().query(`DROP TRIGGER fail_marked_redemption ON redemptions`);
        await db().query(`DROP FUNCTION fail_marked_redemption()`);
      }
      const retried = await send().expect(201);
      expect(retried.body.data).toMatchObject({ voucher_id: v.id, external_order_id: 'ORD-5XX', status: 'succeeded' });
    });

    it('200 parallel redeems of one voucher: exactly one succeeds, 199 get 409 VOUCHER_ALREADY_REDEEMED, one redemption row', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          redeemRequest(
            ctx,
            app,
            i % 2 ? { type: 'qr_token', value: v.qrToken } : { type: 'redeem_code', value: v.code },
          ),
        ),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      const conflicts = responses.filter((r) => r.status === 409);
      expect(conflicts).toHaveLength(199);
      for (const res of conflicts) expectError(res, 409, 'VOUCHER_ALREADY_REDEEMED');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM redemptions WHERE voucher_id = $1`, [
        v.id,
      ]);
      expect(count).toBe(1);
    });
  });

  describe('get redemption and reverse', () => {
    const redeemed = async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const res = await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }).expect(201);
      return { voucher: v, redemptionId: res.body.data.id as string };
    };

    it('returns the redemption record with reversal null while it stands', async () => {
      const { voucher, redemptionId } = await redeemed();
      const res = await getRedemption(redemptionId).expect(200);
      expect(res.body.data).toMatchObject({
        id: redemptionId,
        voucher_id: voucher.id,
        status: 'succeeded',
        reversal: null,
      });
      expectError(await getRedemption(randomUUID()), 404, 'NOT_FOUND');
      expectError(await getRedemption('not-an-id'), 404, 'NOT_FOUND');
    });

    it('reverses a redemption: 201 with the reversal, the voucher is available again and can be redeemed again', async () => {
      const { voucher, redemptionId } = await redeemed();
      const res = await reverse(redemptionId, randomUUID(), { reason: 'Order cancelled', operator_id: 'op-1' }).expect(
        201,
      );
      expect(res.body.data).toMatchObject({
        id: expect.any(String),
        redemption_id: redemptionId,
        reason: 'Order cancelled',
        operator_id: 'op-1',
        redemption: { id: redemptionId, status: 'reversed' },
        voucher: { id: voucher.id, status: 'available', redeemed_at: null },
      });
      const got = await getRedemption(redemptionId).expect(200);
      expect(got.body.data).toMatchObject({
        status: 'reversed',
        reversal: { id: res.body.data.id, redemption_id: redemptionId, reason: 'Order cancelled', operator_id: 'op-1' },
      });
      await redeemRequest(ctx, app, { type: 'redeem_code', value: voucher.code }).expect(201);
    });

    it('puts a voucher whose validity ended meanwhile back to expired', async () => {
      const { voucher, redemptionId } = await redeemed();
      await setValidity(voucher.id, '2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z');
      const res = await reverse(redemptionId).expect(201);
      expect(res.body.data.voucher).toMatchObject({ id: voucher.id, status: 'expired' });
    });

    it('answers 409 REDEMPTION_ALREADY_REVERSED for a second reverse with a new key', async () => {
      const { redemptionId } = await redeemed();
      await reverse(redemptionId).expect(201);
      expectError(await reverse(redemptionId), 409, 'REDEMPTION_ALREADY_REVERSED');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM reversals WHERE redemption_id = $1`, [
        redemptionId,
      ]);
      expect(count).toBe(1);
    });

    it('parallel reverses of one redemption create exactly one reversal', async () => {
      const { redemptionId } = await redeemed();
      const responses = await Promise.all(Array.from({ length: 20 }, () => reverse(redemptionId)));
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      for (const res of responses.filter((r) => r.status !== 201)) expectError(res, 409, 'REDEMPTION_ALREADY_REVERSED');
    });

    it('replays the byte-identical reversal for the same key; reusing the redemption key is 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const redeemKey = randomUUID();
      const redemption = await redeemRequest(ctx, app, { type: 'qr_token', value: v.qrToken }, redeemKey).expect(201);
      const redemptionId = redemption.body.data.id;
      expectError(await reverse(redemptionId, redeemKey), 409, 'IDEMPOTENCY_KEY_REUSED');
      const key = randomUUID();
      const first = await reverse(redemptionId, key, { reason: 'r' }).expect(201);
      const replay = await reverse(redemptionId, key, { reason: 'r' }).expect(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expectError(await reverse(redemptionId, key, { reason: 'other' }), 409, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('answers 400 without an Idempotency-Key or with an unknown field, 404 for an unknown redemption', async () => {
      const { redemptionId } = await redeemed();
      const noKey = await request(server())
        .post(`${API}/vouchers/redemptions/${redemptionId}/reverse`)
        .set(bearer(app.token))
        .send({});
      expectError(noKey, 400, 'VALIDATION_FAILED');
      expectError(await reverse(redemptionId, randomUUID(), { amount: 5 }), 400, 'VALIDATION_FAILED');
      expectError(await reverse(randomUUID()), 404, 'NOT_FOUND');
    });

    it('gives a reversed voucher a new code when its old code was meanwhile taken by another live voucher', async () => {
      const { voucher, redemptionId } = await redeemed();
      const other = await issuedVoucher(ctx, app, templateId);
      const [{ code_hash }] = await db().query(`SELECT code_hash FROM vouchers WHERE id = $1`, [voucher.id]);
      await db().query(`UPDATE vouchers SET code_hash = $2 WHERE id = $1`, [other.id, code_hash]);
      const res = await reverse(redemptionId).expect(201);
      expect(res.body.data.voucher.status).toBe('available');
      const rows = await db().query(`SELECT id, code_hash FROM vouchers WHERE id = ANY($1)`, [[voucher.id, other.id]]);
      expect(rows[0].code_hash).not.toBe(rows[1].code_hash);
      await verify({ type: 'qr_token', value: voucher.qrToken }).expect(200);
    });
  });
});
