import request from 'supertest';
import { hashSecretToken } from '@app/auth';
import { DataSource } from 'typeorm';
import { startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, expectError } from './runtime-fixtures';

describe('console: tokens, bot bindings and recipient search', () => {
  let ctx: VoucherTestContext;
  let owner: Record<string, string>;
  let applicationId: string;

  beforeAll(async () => {
    ctx = await startVoucherApp();
    owner = bearer(await ctx.jwt('tok-owner', 'Token Owner'));
    const res = await request(ctx.app.getHttpServer()).post(`${API}/applications`).set(owner).send({ name: 'Tokens' });
    applicationId = res.body.data.id;
  });
  afterAll(() => ctx.close());

  const http = () => request(ctx.app.getHttpServer());
  const tokens = () => `${API}/applications/${applicationId}/tokens`;

  describe('tokens', () => {
    it('creates a token (201) whose plaintext appears once; only its SHA-256 is stored', async () => {
      const res = await http()
        .post(tokens())
        .set(owner)
        .send({ name: 'POS', permissions: ['vouchers:redeem', 'vouchers:verify'] })
        .expect(201);
      const data = res.body.data;
      expect(data).toEqual({
        id: expect.any(String),
        application_id: applicationId,
        name: 'POS',
        prefix: data.token.slice(0, 12),
        permissions: ['vouchers:verify', 'vouchers:redeem'],
        expires_at: null,
        last_used_at: null,
        revoked_at: null,
        created_at: expect.any(String),
        token: expect.stringMatching(/^sop_[0-9A-Za-z]{43}$/),
      });
      const [row]: Array<Record<string, string>> = await ctx.app
        .get(DataSource)
        .query(`SELECT * FROM app_tokens WHERE id = $1`, [data.id]);
      expect(row.token_hash).toBe(hashSecretToken(data.token));
      expect(JSON.stringify(row)).not.toContain(data.token);

      const list = await http().get(tokens()).set(owner).expect(200);
      const listed = (list.body.data as Array<Record<string, unknown>>).find((t) => t.id === data.id)!;
      expect(listed).not.toHaveProperty('token');
      expect(listed.prefix).toBe(data.prefix);
      expect(JSON.stringify(list.body)).not.toContain(data.token);
    });

    it.each([
      [{ name: 'x', permissions: ['vouchers:admin'] }, 'permissions'],
      [{ name: 'x', permissions: [] }, 'permissions'],
      [{ name: 'x', permissions: ['vouchers:read', 'vouchers:read'] }, 'permissions'],
      [{ name: 'x' }, 'permissions'],
      [{ permissions: ['vouchers:read'] }, 'name'],
      [{ name: 'x', permissions: ['vouchers:read'], expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'x', permissions: ['vouchers:read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', permissions: ['vouchers:read'], application_id: 'y' }, 'application_id'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const res = await http().post(tokens()).set(owner).send(body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('accepts a future expires_at and returns it in ISO 8601 UTC', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const res = await http()
        .post(tokens())
        .set(owner)
        .send({ name: 'short-lived', permissions: ['vouchers:read'], expires_at: expiresAt })
        .expect(201);
      expect(res.body.data.expires_at).toBe(expiresAt);
    });

    it('revokes a token at once: the request right after the revocation gets 401', async () => {
      const created = await http()
        .post(tokens())
        .set(owner)
        .send({ name: 'to revoke', permissions: ['vouchers:read'] });
      const { id, token } = created.body.data as { id: string; token: string };
      await http().get(`${API}/me`).set(bearer(token)).expect(200);

      const revoked = await http().delete(`${tokens()}/${id}`).set(owner).expect(200);
      expect(revoked.body.data).toMatchObject({ id, revoked_at: expect.any(String) });
      expect(revoked.body.data).not.toHaveProperty('token');

      expectError(await http().get(`${API}/me`).set(bearer(token)), 401, 'UNAUTHORIZED');
      const again = await http().delete(`${tokens()}/${id}`).set(owner).expect(200);
      expect(again.body.data.revoked_at).toBe(revoked.body.data.revoked_at);
    });

    it('stops every token of an application the owner disables (403 APPLICATION_DISABLED)', async () => {
      const app = await http().post(`${API}/applications`).set(owner).send({ name: 'to disable' }).expect(201);
      const created = await http()
        .post(`${API}/applications/${app.body.data.id}/tokens`)
        .set(owner)
        .send({ name: 't', permissions: ['vouchers:read'] })
        .expect(201);
      await http().get(`${API}/me`).set(bearer(created.body.data.token)).expect(200);
      await http().patch(`${API}/applications/${app.body.data.id}`).set(owner).send({ status: 'disabled' }).expect(200);
      expectError(await http().get(`${API}/me`).set(bearer(created.body.data.token)), 403, 'APPLICATION_DISABLED');
    });

    it('answers 404 for an unknown token id', async () => {
      expectError(await http().delete(`${tokens()}/00000000-0000-4000-8000-000000000000`).set(owner), 404, 'NOT_FOUND');
      expectError(await http().delete(`${tokens()}/abc`).set(owner), 404, 'NOT_FOUND');
    });
  });

  describe('bot bindings', () => {
    const botId = '65f1c0ffee0000000000beef';
    const binding = () => `${API}/applications/${applicationId}/bots/${botId}`;

    it('binds a bot (200, idempotent) and unbinds it (200, then 404)', async () => {
      const first = await http().put(binding()).set(owner).expect(200);
      expect(first.body.data).toEqual({ application_id: applicationId, bot_id: botId, created_at: expect.any(String) });
      const again = await http().put(binding()).set(owner).expect(200);
      expect(again.body.data).toEqual(first.body.data);
      const removed = await http().delete(binding()).set(owner).expect(200);
      expect(removed.body.data).toEqual(first.body.data);
      expectError(await http().delete(binding()).set(owner), 404, 'NOT_FOUND');
    });

    it.each(['65F1C0FFEE0000000000BEEF', '65f1c0ffee', 'zzf1c0ffee0000000000beef'])(
      'refuses the bot id %s with 400',
      async (badId) => {
        const res = await http().put(`${API}/applications/${applicationId}/bots/${badId}`).set(owner);
        expectError(res, 400, 'VALIDATION_FAILED');
        expect(res.body.error.details).toEqual([
          { field: 'botId', problem: 'must be 24 lowercase hexadecimal characters' },
        ]);
      },
    );
  });

  describe('recipient search', () => {
    const search = (keyword: string | undefined) =>
      http()
        .get(`${API}/applications/${applicationId}/vouchers/recipients`)
        .query(keyword === undefined ? {} : { keyword })
        .set(owner);

    beforeAll(async () => {
      const users = [
        ['u-anna', 'Anna Schmidt'],
        ['u-hanna', 'hanna meyer'],
        ['u-bob', 'Bob'],
        ['an', 'Short Id'],
        ['u-pct', '100% Anna'],
      ];
      for (const [id, name] of users)
        await http()
          .get(`${API}/holder/inbox`)
          .set(bearer(await ctx.jwt(id, name)));
      const many = Array.from({ length: 25 }, (_, i) => [`bulk-${i}`, `Bulk User ${i}`]);
      await ctx.app
        .get(DataSource)
        .query(`INSERT INTO users (id, name) SELECT * FROM unnest($1::varchar[], $2::varchar[])`, [
          many.map((u) => u[0]),
          many.map((u) => u[1]),
        ]);
    });

    it('matches a case-insensitive substring of the name, or the exact id first', async () => {
      const res = await search('ANN').expect(200);
      expect(res.body.data).toEqual([
        { id: 'u-pct', name: '100% Anna' },
        { id: 'u-anna', name: 'Anna Schmidt' },
        { id: 'u-hanna', name: 'hanna meyer' },
      ]);
      const byId = await search('an').expect(200);
      expect(byId.body.data[0]).toEqual({ id: 'an', name: 'Short Id' });
      const exact = await search('u-bob').expect(200);
      expect(exact.body.data).toEqual([{ id: 'u-bob', name: 'Bob' }]);
    });

    it('treats LIKE wildcards literally', async () => {
      const res = await search('0%').expect(200);
      expect(res.body.data).toEqual([{ id: 'u-pct', name: '100% Anna' }]);
      expect((await search('__').expect(200)).body.data).toEqual([]);
    });

    it('returns at most 20 users', async () => {
      const res = await search('bulk user').expect(200);
      expect(res.body.data).toHaveLength(20);
    });

    it('refuses a keyword shorter than 2 characters or a missing one with 400', async () => {
      expectError(await search('a'), 400, 'VALIDATION_FAILED');
      expectError(await search(' a '), 400, 'VALIDATION_FAILED');
      expectError(await search(undefined), 400, 'VALIDATION_FAILED');
    });
  });
});
