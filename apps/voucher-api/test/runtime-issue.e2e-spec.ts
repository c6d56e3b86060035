import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { VoucherCredentials } from '../src/vouchers/voucher-credentials';
import {
  seedApplication,
  seedAuthorization,
  SeededApplication,
  seedUser,
  startVoucherApp,
  VoucherTestContext,
} from './app-context';
import {
  activeTemplate,
  API,
  bearer,
  credentialsOf,
  expectError,
  GENEROUS_RATE_LIMITS,
  issueRequest,
  redeemRequest,
} from './runtime-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describe('runtime issue and revoke', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;
  const db = () => ctx.app.get(DataSource);
  const newUser = async () => {
    const userId = `user-${randomUUID()}`;
    await seedAuthorization(ctx, userId, app.applicationId);
    return userId;
  };

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
    templateId = await activeTemplate(ctx, app, { per_user_limit: 100 });
  });
  afterAll(() => ctx.close());

  describe('issue', () => {
    it('issues a voucher: 201 with issuanceId and voucher, never the plaintext credentials', async () => {
      const userId = await newUser();
      const res = await issueRequest(ctx, app, {
        template_id: templateId,
        recipient_user_id: userId,
        external_issue_id: 'ISS-1',
      }).expect(201);
      expect(res.body).toMatchObject({ success: true, code: 201, message: 'Created' });
      const { issuanceId, voucher } = res.body.data;
      expect(issuanceId).toEqual(expect.any(String));
      expect(voucher).toEqual({
        id: expect.any(String),
        template_id: templateId,
        status: 'available',
        recipient_user_id: userId,
        external_issue_id: 'ISS-1',
        valid_from: expect.any(String),
        valid_to: expect.any(String),
        issued_at: expect.any(String),
        redeemed_at: null,
      });
      expect(issuanceId).not.toBe(voucher.id);
      // Relative validity of 30 days counts from the moment of issue.
      expect(Date.parse(voucher.valid_to) - Date.parse(voucher.valid_from)).toBe(30 * 24 * 3600 * 1000);
      const { qrToken, code } = await credentialsOf(ctx, voucher.id);
      expect(qrToken).toMatch(/^vq_[0-9A-Za-z]{32}$/);
      expect(code).toMatch(/^[A-HJKMNP-Z2-9]{6}$/);
      expect(res.text).not.toContain(qrToken);
      expect(res.text).not.toContain(code);
    });

    it('stores credentials only encrypted and as keyed hashes', async () => {
      const userId = await newUser();
      const res = await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: userId }).expect(201);
      const id = res.body.data.voucher.id;
      const { qrToken, code } = await credentialsOf(ctx, id);
      const [row] = await db().query(`SELECT * FROM vouchers WHERE id = $1`, [id]);
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(qrToken);
      expect(stored).not.toContain(code);
      expect(row.qr_token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('uses the fixed validity of the template', async () => {
      const fixed = await activeTemplate(ctx, app, {
        validity: { from: '2026-01-01T00:00:00Z', to: '2099-01-01T00:00:00Z' },
      });
      const res = await issueRequest(ctx, app, { template_id: fixed, recipient_user_id: await newUser() }).expect(201);
      expect(res.body.data.voucher).toMatchObject({
        valid_from: '2026-01-01T00:00:00.000Z',
        valid_to: '2099-01-01T00:00:00.000Z',
      });
    });

    it('answers 400 without an Idempotency-Key and for missing fields', async () => {
      const res = await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/issue`)
        .set(bearer(app.token))
        .send({ template_id: templateId, external_issue_id: 'x', recipient_user_id: 'u' });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toContainEqual({ field: 'Idempotency-Key', problem: 'is required' });
      for (const field of ['template_id', 'external_issue_id', 'recipient_user_id']) {
        const body: Record<string, string> = {
          template_id: templateId,
          external_issue_id: 'x',
          recipient_user_id: 'u',
        };
        delete body[field];
        const missing = await request(ctx.app.getHttpServer())
          .post(`${API}/vouchers/issue`)
          .set(bearer(app.token))
          .set('Idempotency-Key', randomUUID())
          .send(body);
        expectError(missing, 400, 'VALIDATION_FAILED');
      }
    });

    it('answers 404 for an unknown template id and 409 TEMPLATE_NOT_ACTIVE for draft, reviewing, paused and ended templates', async () => {
      const userId = await newUser();
      expectError(
        await issueRequest(ctx, app, { template_id: randomUUID(), recipient_user_id: userId }),
        404,
        'NOT_FOUND',
      );
      expectError(await issueRequest(ctx, app, { template_id: 'nope', recipient_user_id: userId }), 404, 'NOT_FOUND');
      const draft = await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/templates`)
        .set(bearer(app.token))
        .send({
          external_template_id: `d-${randomUUID()}`,
          name: 'Draft',
          type: 'gift',
          issuer_name: 'I',
          fulfiller_name: 'F',
          fulfillment_category: 'app_credit',
          acquisition_source: 'free',
          validity: { days_after_claim: 5 },
          issue_limit: 0,
        })
        .expect(201);
      const draftId = draft.body.data.id;
      expectError(
        await issueRequest(ctx, app, { template_id: draftId, recipient_user_id: userId }),
        409,
        'TEMPLATE_NOT_ACTIVE',
      );
      await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/templates/${draftId}/submit`)
        .set(bearer(app.token))
        .expect(200);
      expectError(
        await issueRequest(ctx, app, { template_id: draftId, recipient_user_id: userId }),
        409,
        'TEMPLATE_NOT_ACTIVE',
      );
      const paused = await activeTemplate(ctx, app);
      await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/templates/${paused}/pause`)
        .set(bearer(app.token))
        .expect(200);
      expectError(
        await issueRequest(ctx, app, { template_id: paused, recipient_user_id: userId }),
        409,
        'TEMPLATE_NOT_ACTIVE',
      );
      await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/templates/${paused}/resume`)
        .set(bearer(app.token))
        .expect(200);
      await issueRequest(ctx, app, { template_id: paused, recipient_user_id: userId }).expect(201);
      await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/templates/${paused}/end`)
        .set(bearer(app.token))
        .expect(200);
      expectError(
        await issueRequest(ctx, app, { template_id: paused, recipient_user_id: userId }),
        409,
        'TEMPLATE_NOT_ACTIVE',
      );
    });

    it('answers 403 RECIPIENT_NOT_AUTHORIZED for a user who never authorised the application', async () => {
      await seedUser(ctx, 'stranger');
      const res = await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'stranger' });
      expectError(res, 403, 'RECIPIENT_NOT_AUTHORIZED');
      const [{ count }] = await db().query(
        `SELECT count(*)::int AS count FROM vouchers WHERE recipient_user_id = 'stranger'`,
      );
      expect(count).toBe(0);
      expectError(
        await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'never-seen' }),
        403,
        'RECIPIENT_NOT_AUTHORIZED',
      );
    });

    it('accepts a recipient who already holds one of the application vouchers, even after consent is withdrawn', async () => {
      const userId = await newUser();
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: userId }).expect(201);
      await db().query(`DELETE FROM authorizations WHERE user_id = $1`, [userId]);
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: userId }).expect(201);
    });

    it('answers 409 DUPLICATE_EXTERNAL_ID for a reused external_issue_id in the application, not across applications', async () => {
      const userId = await newUser();
      await issueRequest(ctx, app, {
        template_id: templateId,
        recipient_user_id: userId,
        external_issue_id: 'DUP-1',
      }).expect(201);
      expectError(
        await issueRequest(ctx, app, {
          template_id: templateId,
          recipient_user_id: userId,
          external_issue_id: 'DUP-1',
        }),
        409,
        'DUPLICATE_EXTERNAL_ID',
      );
      const other = await seedApplication(ctx, { ownerId: 'owner-2' });
      const otherTemplate = await activeTemplate(ctx, other);
      await seedAuthorization(ctx, userId, other.applicationId);
      await issueRequest(ctx, other, {
        template_id: otherTemplate,
        recipient_user_id: userId,
        external_issue_id: 'DUP-1',
      }).expect(201);
    });

    it('replays the byte-identical body for the same key and body, and answers 409 for the same key with another body', async () => {
      const userId = await newUser();
      const key = randomUUID();
      const body = { template_id: templateId, recipient_user_id: userId, external_issue_id: `idem-${key}` };
      const first = await issueRequest(ctx, app, body, key).expect(201);
      const replay = await issueRequest(ctx, app, body, key).expect(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM vouchers WHERE external_issue_id = $1`, [
        body.external_issue_id,
      ]);
      expect(count).toBe(1);
      expectError(
        await issueRequest(ctx, app, { ...body, external_issue_id: `other-${key}` }, key),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });
  });

  describe('redeem code uniqueness', () => {
    it('draws a new code when the first one is held by a live voucher of the application', async () => {
      const first = await issueRequest(ctx, app, {
        template_id: templateId,
        recipient_user_id: await newUser(),
      }).expect(201);
      const taken = (await credentialsOf(ctx, first.body.data.voucher.id)).code;
      const credentials = ctx.app.get(VoucherCredentials);
      const real = credentials.generate.bind(credentials);
      const spy = jest
        .spyOn(credentials, 'generate')
        .mockImplementationOnce(() => ({ ...real(), code: taken }))
        .mockImplementationOnce(() => ({ ...real(), code: taken }));
      try {
        const second = await issueRequest(ctx, app, {
          template_id: templateId,
          recipient_user_id: await newUser(),
        }).expect(201);
        const { code } = await credentialsOf(ctx, second.body.data.voucher.id);
        expect(code).not.toBe(taken);
        expect(spy).toHaveBeenCalledTimes(3);
      } finally {
        spy.mockRestore();
      }
    });

    it('lets a redeemed voucher code be reused; the code then finds the live voucher', async () => {
      const first = await issueRequest(ctx, app, {
        template_id: templateId,
        recipient_user_id: await newUser(),
      }).expect(201);
      const firstId = first.body.data.voucher.id;
      const { code } = await credentialsOf(ctx, firstId);
      await redeemRequest(ctx, app, { type: 'redeem_code', value: code }).expect(201);
      const credentials = ctx.app.get(VoucherCredentials);
      const real = credentials.generate.bind(credentials);
      const spy = jest.spyOn(credentials, 'generate').mockImplementationOnce(() => ({ ...real(), code }));
      let secondId: string;
      try {
        const second = await issueRequest(ctx, app, {
          template_id: templateId,
          recipient_user_id: await newUser(),
        }).expect(201);
        secondId = second.body.data.voucher.id;
      } finally {
        spy.mockRestore();
      }
      expect((await credentialsOf(ctx, secondId)).code).toBe(code);
      const verified = await request(ctx.app.getHttpServer())
        .post(`${API}/vouchers/verify`)
        .set(bearer(app.token))
        .send({ credential: { type: 'redeem_code', value: code } })
        .expect(200);
      expect(verified.body.data.voucher).toMatchObject({ id: secondId, status: 'available' });
    });
  });

  describe('stock and per-user limit under concurrency', () => {
    it('100 parallel issues against issue_limit 10 create exactly 10 vouchers; the rest get 409 ISSUE_LIMIT_REACHED', async () => {
      const limited = await activeTemplate(ctx, app, { issue_limit: 10, per_user_limit: 100 });
      const users = await Promise.all(Array.from({ length: 100 }, () => newUser()));
      const responses = await Promise.all(
        users.map((userId) => issueRequest(ctx, app, { template_id: limited, recipient_user_id: userId })),
      );
      const created = responses.filter((r) => r.status === 201);
      const refused = responses.filter((r) => r.status === 409);
      expect(created).toHaveLength(10);
      expect(refused).toHaveLength(90);
      for (const res of refused) expectError(res, 409, 'ISSUE_LIMIT_REACHED');
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM vouchers WHERE template_id = $1`, [
        limited,
      ]);
      expect(count).toBe(10);
      const template = await request(ctx.app.getHttpServer())
        .get(`${API}/vouchers/templates/${limited}`)
        .set(bearer(app.token))
        .expect(200);
      expect(template.body.data).toMatchObject({ issued_count: 10, remaining: 0 });
    });

    it('100 parallel issues of one template to one user with per_user_limit 3 create exactly 3 vouchers', async () => {
      const perUser = await activeTemplate(ctx, app, { issue_limit: 0, per_user_limit: 3 });
      const userId = await newUser();
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => issueRequest(ctx, app, { template_id: perUser, recipient_user_id: userId })),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
      const refused = responses.filter((r) => r.status !== 201);
      expect(refused).toHaveLength(97);
      for (const res of refused) expectError(res, 409, 'PER_USER_LIMIT_REACHED');
      const [{ count }] = await db().query(
        `SELECT count(*)::int AS count FROM vouchers WHERE template_id = $1 AND recipient_user_id = $2`,
        [perUser, userId],
      );
      expect(count).toBe(3);
      // Another user is not affected by the first user's quota.
      await issueRequest(ctx, app, { template_id: perUser, recipient_user_id: await newUser() }).expect(201);
    });

    it('defaults per_user_limit to 1', async () => {
      const single = await activeTemplate(ctx, app, { issue_limit: 0 });
      const userId = await newUser();
      await issueRequest(ctx, app, { template_id: single, recipient_user_id: userId }).expect(201);
      expectError(
        await issueRequest(ctx, app, { template_id: single, recipient_user_id: userId }),
        409,
        'PER_USER_LIMIT_REACHED',
      );
    });

    it('counts allocated stock against issue_limit (remaining = issue_limit − issued − allocated)', async () => {
      const shared = await activeTemplate(ctx, app, { issue_limit: 3, per_user_limit: 100 });
      await db().query(`UPDATE templates SET allocated_count = 2 WHERE id = $1`, [shared]);
      await issueRequest(ctx, app, { template_id: shared, recipient_user_id: await newUser() }).expect(201);
      expectError(
        await issueRequest(ctx, app, { template_id: shared, recipient_user_id: await newUser() }),
        409,
        'ISSUE_LIMIT_REACHED',
      );
    });

    it('a duplicate external_issue_id, even raced in parallel, yields one voucher and consumes no extra stock', async () => {
      const raced = await activeTemplate(ctx, app, { issue_limit: 10, per_user_limit: 100 });
      const users = await Promise.all(Array.from({ length: 10 }, () => newUser()));
      const responses = await Promise.all(
        users.map((userId) =>
          issueRequest(ctx, app, { template_id: raced, recipient_user_id: userId, external_issue_id: `race-${raced}` }),
        ),
      );
      expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
      for (const res of responses.filter((r) => r.status !== 201)) expectError(res, 409, 'DUPLICATE_EXTERNAL_ID');
      const [row] = await db().query(`SELECT issued_count FROM templates WHERE id = $1`, [raced]);
      expect(row.issued_count).toBe(1);
      const [{ count }] = await db().query(
        `SELECT count(*)::int AS count FROM template_user_issues WHERE template_id = $1`,
        [raced],
      );
      expect(count).toBe(1);
    });
  });

  describe('revoke', () => {
    it('revokes an available voucher; a second revoke is 409 and redeeming it gives 409 VOUCHER_NOT_REDEEMABLE', async () => {
      const userId = await newUser();
      const issued = await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: userId }).expect(201);
      const id = issued.body.data.voucher.id;
      const revoke = () => request(ctx.app.getHttpServer()).post(`${API}/vouchers/${id}/revoke`).set(bearer(app.token));
      const res = await revoke().expect(200);
      expect(res.body.data).toMatchObject({ id, status: 'revoked' });
      expectError(await revoke(), 409, 'CONFLICT');
      const { code } = await credentialsOf(ctx, id);
      expectError(await redeemRequest(ctx, app, { type: 'redeem_code', value: code }), 409, 'VOUCHER_NOT_REDEEMABLE');
    });

    it('needs vouchers:issue and answers 404 for an unknown voucher', async () => {
      const reader = await seedApplication(ctx, { permissions: ['vouchers:read'] });
      expectError(
        await request(ctx.app.getHttpServer()).post(`${API}/vouchers/${randomUUID()}/revoke`).set(bearer(reader.token)),
        403,
        'FORBIDDEN',
      );
      expectError(
        await request(ctx.app.getHttpServer()).post(`${API}/vouchers/${randomUUID()}/revoke`).set(bearer(app.token)),
        404,
        'NOT_FOUND',
      );
    });
  });
});
