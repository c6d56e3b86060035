import request from 'supertest';
import { generateSecretToken } from '@app/auth';
import { eventually } from '@app/testing';
import { DataSource } from 'typeorm';
import { seedApplication, seedToken, seedUser, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError, GENEROUS_RATE_LIMITS, templateBody } from './runtime-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describe('runtime authentication, application state, permissions and Origin policy', () => {
  let ctx: VoucherTestContext;
  const server = () => ctx.app.getHttpServer();
  const me = (token: string) => request(server()).get(`${API}/me`).set(bearer(token));

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
  });
  afterAll(() => ctx.close());

  describe('token', () => {
    it('GET /me returns the application that owns the token, with the token grants and no secret', async () => {
      const app = await seedApplication(ctx, { name: 'Bean Shop', permissions: ['vouchers:read'] });
      const res = await me(app.token).expect(200);
      expect(res.body).toMatchObject({ success: true, code: 200, message: 'OK' });
      expect(res.body.data).toMatchObject({
        id: app.applicationId,
        name: 'Bean Shop',
        status: 'active',
        allowed_origins: ['*'],
        features: { vouchers: true },
        token: { id: app.tokenId, permissions: ['vouchers:read'], expires_at: null },
      });
      expect(res.body.data.token.prefix).toBe(app.token.slice(0, 12));
      expect(JSON.stringify(res.body)).not.toContain(app.token);
      expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
    });

    it('records last_used_at of the token on use', async () => {
      const app = await seedApplication(ctx);
      await me(app.token).expect(200);
      // The write is deliberately off the request path: it lands a moment later.
      await eventually(async () => {
        const [row] = await ctx.app
          .get(DataSource)
          .query(`SELECT last_used_at FROM app_tokens WHERE id = $1`, [app.tokenId]);
        expect(row.last_used_at).toBeInstanceOf(Date);
      }, 2000);
    });

    it('answers 401 without a token, with an unknown token, a revoked token and an expired token', async () => {
      const app = await seedApplication(ctx);
      expectError(await request(server()).get(`${API}/me`), 401, 'UNAUTHORIZED');
      expectError(await me(generateSecretToken('sop_')), 401, 'UNAUTHORIZED');
      const revoked = await seedToken(ctx, app.applicationId, { revokedAt: new Date() });
      expectError(await me(revoked.token), 401, 'UNAUTHORIZED');
      const expired = await seedToken(ctx, app.applicationId, { expiresAt: new Date(Date.now() - 1000) });
      expectError(await me(expired.token), 401, 'UNAUTHORIZED');
      const future = await seedToken(ctx, app.applicationId, { expiresAt: new Date(Date.now() + 3_600_000) });
      await me(future.token).expect(200);
    });

    it('stops accepting a token at once when it is revoked', async () => {
      const app = await seedApplication(ctx);
      await me(app.token).expect(200);
      await request(server())
        .delete(`${API}/applications/${app.applicationId}/tokens/${app.tokenId}`)
        .set(bearer(await ctx.jwt(app.ownerId)))
        .expect(200);
      expectError(await me(app.token), 401, 'UNAUTHORIZED');
    });

    it('refuses an account JWT and a bot token on runtime routes with 401 naming their kind, and a malformed bearer as malformed', async () => {
      const refusals: Array<[string, string]> = [
        [
          await ctx.jwt('u-1', 'Alice', ['platform_admin']),
          'This route takes an application token (sop_…), not an account JWT',
        ],
        [generateSecretToken('sbot_'), 'This route takes an application token (sop_…), not a bot token (sbot_…)'],
        [
          'not-a-token',
          'The bearer token is malformed: this route takes an application token (sop_…), which starts with sop_',
        ],
      ];
      for (const [token, message] of refusals) {
        const res = await me(token);
        expectError(res, 401, 'UNAUTHORIZED');
        expect(res.body.message).toBe(message);
      }
    });
  });

  describe('application state and features', () => {
    it('answers 403 APPLICATION_DISABLED for every token of a disabled application', async () => {
      const app = await seedApplication(ctx, { status: 'disabled' });
      const res0 = await me(app.token);
      expectError(res0, 403, 'APPLICATION_DISABLED');
      expect(res0.headers['x-ratelimit-limit']).toEqual(expect.any(String));
      const res = await request(server()).post(`${API}/vouchers/templates`).set(bearer(app.token)).send(templateBody());
      expectError(res, 403, 'APPLICATION_DISABLED');
    });

    it('lets platform staff close and reopen the vouchers feature; closed → 403 FEATURE_DISABLED on runtime routes', async () => {
      const app = await seedApplication(ctx);
      const staff = await ctx.jwt('staff-1', 'Staff', ['platform_admin']);
      const closed = await request(server())
        .patch(`${API}/admin/applications/${app.applicationId}`)
        .set(bearer(staff))
        .send({ features: { vouchers: false } })
        .expect(200);
      expect(closed.body.data).toMatchObject({ id: app.applicationId, features: { vouchers: false } });
      expectError(await me(app.token), 403, 'FEATURE_DISABLED');
      expectError(
        await request(server()).get(`${API}/vouchers/templates`).set(bearer(app.token)),
        403,
        'FEATURE_DISABLED',
      );
      await request(server())
        .patch(`${API}/admin/applications/${app.applicationId}`)
        .set(bearer(staff))
        .send({ features: { vouchers: true } })
        .expect(200);
      await me(app.token).expect(200);
    });

    it('treats an application whose features lack the vouchers flag as open, on runtime routes and for allocations alike', async () => {
      const app = await seedApplication(ctx, { features: {} });
      const res = await me(app.token).expect(200);
      expect(res.body.data.features).toEqual({ vouchers: true });
      await me(app.token).expect(200);
      const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
      await seedUser(ctx, 'sender-of-old-app');
      const allocated = await request(server())
        .post(`${API}/applications/${app.applicationId}/vouchers/allocations`)
        .set(bearer(await ctx.jwt(app.ownerId)))
        .send({ templateId, recipientUserId: 'sender-of-old-app', quantity: 2, idempotencyKey: 'old-app-1' })
        .expect(201);
      expect(allocated.body.data).toMatchObject({ templateId, quantity: 2, status: 'active' });
      const consoleView = await request(server())
        .get(`${API}/applications/${app.applicationId}`)
        .set(bearer(await ctx.jwt(app.ownerId)))
        .expect(200);
      expect(consoleView.body.data.features).toEqual({ vouchers: true });
    });

    it('keeps the feature switch to platform staff: 403 for an ordinary account, 401 for an app token, 404 unknown app', async () => {
      const app = await seedApplication(ctx);
      const owner = await ctx.jwt(app.ownerId);
      expectError(
        await request(server())
          .patch(`${API}/admin/applications/${app.applicationId}`)
          .set(bearer(owner))
          .send({ features: { vouchers: false } }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await request(server())
          .patch(`${API}/admin/applications/${app.applicationId}`)
          .set(bearer(app.token))
          .send({ features: { vouchers: false } }),
        401,
        'UNAUTHORIZED',
      );
      const staff = await ctx.jwt('staff-1', 'Staff', ['platform_admin']);
      expectError(
        await request(server())
          .patch(`${API}/admin/applications/00000000-0000-4000-8000-000000000000`)
          .set(bearer(staff))
          .send({ features: { vouchers: false } }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await request(server())
          .patch(`${API}/admin/applications/${app.applicationId}`)
          .set(bearer(staff))
          .send({ features: { vouchers: 'no' } }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('permissions', () => {
    const routes: Array<[string, string, string, () => Record<string, unknown> | undefined]> = [
      ['vouchers:read', 'get', '/me', () => undefined],
      ['vouchers:read', 'get', '/vouchers/templates', () => undefined],
      ['vouchers:templates:write', 'post', '/vouchers/templates', () => templateBody()],
      ['vouchers:issue', 'post', '/vouchers/issue', () => ({})],
      ['vouchers:verify', 'post', '/vouchers/verify', () => ({ credential: { type: 'redeem_code', value: 'ABCDEF' } })],
      ['vouchers:redeem', 'post', '/vouchers/redeem', () => ({})],
      ['vouchers:read', 'get', '/vouchers/redemptions/00000000-0000-4000-8000-000000000000', () => undefined],
      ['vouchers:reverse', 'post', '/vouchers/redemptions/00000000-0000-4000-8000-000000000000/reverse', () => ({})],
    ];

    it.each(routes)('a token without %s gets 403 FORBIDDEN on %s %s', async (permission, method, path, body) => {
      const app = await seedApplication(ctx, {
        permissions: ['vouchers:read', 'vouchers:verify'].filter((p) => p !== permission),
      });
      const call = (request(server()) as unknown as Record<string, (url: string) => request.Test>)
        [method](`${API}${path}`)
        .set(bearer(app.token))
        .set('Idempotency-Key', 'k-1');
      const res = body() ? await call.send(body()) : await call;
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.message).toContain(permission);
    });
  });

  describe('Origin policy', () => {
    it('"*" allows calls with any Origin and without one', async () => {
      const app = await seedApplication(ctx, { allowedOrigins: ['*'] });
      await me(app.token).expect(200);
      await me(app.token).set('Origin', 'https://anything.test').expect(200);
    });

    it('an exact host allows only that host (any scheme or port), not its subdomains', async () => {
      const app = await seedApplication(ctx, { allowedOrigins: ['shop.example.com'] });
      await me(app.token).set('Origin', 'https://shop.example.com').expect(200);
      await me(app.token).set('Origin', 'http://shop.example.com:8080').expect(200);
      expectError(await me(app.token).set('Origin', 'https://a.shop.example.com'), 403, 'ORIGIN_NOT_ALLOWED');
      expectError(await me(app.token).set('Origin', 'https://example.com'), 403, 'ORIGIN_NOT_ALLOWED');
    });

    it('*.domain allows subdomains of any depth but not the domain itself', async () => {
      const app = await seedApplication(ctx, { allowedOrigins: ['*.example.com'] });
      await me(app.token).set('Origin', 'https://a.example.com').expect(200);
      await me(app.token).set('Origin', 'https://b.a.example.com').expect(200);
      expectError(await me(app.token).set('Origin', 'https://example.com'), 403, 'ORIGIN_NOT_ALLOWED');
      expectError(await me(app.token).set('Origin', 'https://evilexample.com'), 403, 'ORIGIN_NOT_ALLOWED');
    });

    it('a restriction without an Origin header answers 403 ORIGIN_NOT_ALLOWED', async () => {
      const app = await seedApplication(ctx, { allowedOrigins: ['shop.example.com'] });
      const res = await me(app.token);
      expectError(res, 403, 'ORIGIN_NOT_ALLOWED');
      expect(res.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
    });
  });

  describe('no request field can switch the application', () => {
    it('refuses application_id in a body with 400 VALIDATION_FAILED and names the field', async () => {
      const app = await seedApplication(ctx);
      const other = await seedApplication(ctx, { ownerId: 'owner-2' });
      const res = await request(server())
        .post(`${API}/vouchers/templates`)
        .set(bearer(app.token))
        .send(templateBody({ application_id: other.applicationId }));
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toContainEqual({ field: 'application_id', problem: 'is not a known field' });
      const list = await request(server()).get(`${API}/vouchers/templates`).set(bearer(other.token)).expect(200);
      expect(list.body.data).toEqual([]);
    });

    it('refuses application_id or bot_id in a query string or in the body of a route without a body', async () => {
      const app = await seedApplication(ctx);
      const list = await request(server())
        .get(`${API}/vouchers/templates?application_id=${app.applicationId}`)
        .set(bearer(app.token));
      expectError(list, 400, 'VALIDATION_FAILED');
      expect(list.body.error.details).toContainEqual({
        field: 'application_id',
        problem: 'is not a known query parameter',
      });
      expectError(await request(server()).get(`${API}/me?bot_id=abc`).set(bearer(app.token)), 400, 'VALIDATION_FAILED');
      const created = await request(server())
        .post(`${API}/vouchers/templates`)
        .set(bearer(app.token))
        .send(templateBody())
        .expect(201);
      const submit = await request(server())
        .post(`${API}/vouchers/templates/${created.body.data.id}/submit`)
        .set(bearer(app.token))
        .send({ application_id: app.applicationId });
      expectError(submit, 400, 'VALIDATION_FAILED');
    });

    it('refuses application_id in the issue body', async () => {
      const app = await seedApplication(ctx);
      const res = await request(server())
        .post(`${API}/vouchers/issue`)
        .set(bearer(app.token))
        .set('Idempotency-Key', 'k-app-id')
        .send({
          template_id: '00000000-0000-4000-8000-000000000000',
          external_issue_id: 'x',
          recipient_user_id: 'u',
          application_id: app.applicationId,
        });
      expectError(res, 400, 'VALIDATION_FAILED');
    });
  });
});
