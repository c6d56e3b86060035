import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { seedApplication, SeededApplication, seedUser, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError } from './runtime-fixtures';

/** Account B probes every console route of account A's application: each answers 404 and changes nothing. */
describe('console isolation between accounts', () => {
  let ctx: VoucherTestContext;
  let appA: SeededApplication;
  let ownerA: Record<string, string>;
  let ownerB: Record<string, string>;
  let templateA: string;
  const botId = '0123456789abcdef01234567';

  beforeAll(async () => {
    ctx = await startVoucherApp();
    appA = await seedApplication(ctx, { ownerId: 'iso-a', name: 'A shop' });
    ownerA = bearer(await ctx.jwt('iso-a', 'Account A'));
    ownerB = bearer(await ctx.jwt('iso-b', 'Account B'));
    await seedUser(ctx, 'iso-sender');
    templateA = await activeTemplate(ctx, appA, { issue_limit: 10 });
    await request(ctx.app.getHttpServer())
      .put(`${API}/applications/${appA.applicationId}/bots/${botId}`)
      .set(ownerA)
      .expect(200);
    await request(ctx.app.getHttpServer())
      .post(`${API}/applications/${appA.applicationId}/vouchers/allocations`)
      .set(ownerA)
      .send({ templateId: templateA, recipientUserId: 'iso-sender', quantity: 2, idempotencyKey: 'iso-1' })
      .expect(201);
  });
  afterAll(() => ctx.close());

  const http = () => request(ctx.app.getHttpServer());
  const base = () => `${API}/applications/${appA.applicationId}`;

  it('hides A’s applications from B’s list', async () => {
    const res = await http().get(`${API}/applications`).set(ownerB).expect(200);
    expect(res.body.data).toEqual([]);
  });

  it('answers 404 to B for every route of A’s application, exactly as for an unknown id', async () => {
    const probes: Array<[string, () => request.Test]> = [
      ['get application', () => http().get(base()).set(ownerB)],
      ['patch application', () => http().patch(base()).set(ownerB).send({ name: 'taken over', status: 'disabled' })],
      ['list tokens', () => http().get(`${base()}/tokens`).set(ownerB)],
      [
        'create token',
        () =>
          http()
            .post(`${base()}/tokens`)
            .set(ownerB)
            .send({ name: 'x', permissions: ['vouchers:read'] }),
      ],
      ['revoke token', () => http().delete(`${base()}/tokens/${appA.tokenId}`).set(ownerB)],
      ['bind bot', () => http().put(`${base()}/bots/${botId}`).set(ownerB)],
      ['unbind bot', () => http().delete(`${base()}/bots/${botId}`).set(ownerB)],
      ['search recipients', () => http().get(`${base()}/vouchers/recipients`).query({ keyword: 'iso' }).set(ownerB)],
      ['list allocations', () => http().get(`${base()}/vouchers/allocations`).set(ownerB)],
      [
        'create allocation',
        () =>
          http()
            .post(`${base()}/vouchers/allocations`)
            .set(ownerB)
            .send({ templateId: templateA, recipientUserId: 'iso-sender', quantity: 1, idempotencyKey: randomUUID() }),
      ],
    ];
    for (const [name, probe] of probes) {
      const res = await probe();
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({
        name,
        status: 404,
        code: 'NOT_FOUND',
      });
      expect(JSON.stringify(res.body)).not.toContain('A shop');
    }
  });

  it('leaves A’s application, token, binding and allocations untouched after B’s attempts', async () => {
    const app = await http().get(base()).set(ownerA).expect(200);
    expect(app.body.data).toMatchObject({ name: 'A shop', status: 'active' });
    await http().get(`${API}/me`).set(bearer(appA.token)).expect(200);
    const [binding]: unknown[] = await ctx.app
      .get(DataSource)
      .query(`SELECT 1 FROM bot_bindings WHERE application_id = $1 AND bot_id = $2`, [appA.applicationId, botId]);
    expect(binding).toBeDefined();
    const allocations = await http().get(`${base()}/vouchers/allocations`).set(ownerA).expect(200);
    expect(allocations.body.data.total).toBe(1);
  });

  it('keeps A’s token of one application from being revoked through another application of A', async () => {
    const other = await http().post(`${API}/applications`).set(ownerA).send({ name: 'A second' }).expect(201);
    expectError(
      await http().delete(`${API}/applications/${other.body.data.id}/tokens/${appA.tokenId}`).set(ownerA),
      404,
      'NOT_FOUND',
    );
    await http().get(`${API}/me`).set(bearer(appA.token)).expect(200);
  });
});
