import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { seedApplication, SeededApplication, seedUser, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError } from './runtime-fixtures';

describe('console: stock allocations', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let owner: Record<string, string>;

  beforeAll(async () => {
    // Each test sets up its own template; the runtime's per-token review limits are not under test here.
    ctx = await startVoucherApp({
      RATE_LIMITS: 'templates.create=1000,templates.submit=1000,templates.lifecycle=1000',
    });
    app = await seedApplication(ctx, { ownerId: 'alloc-owner' });
    owner = bearer(await ctx.jwt('alloc-owner', 'Owner'));
    await seedUser(ctx, 'sender-1');
  });
  afterAll(() => ctx.close());

  const allocate = (body: Record<string, unknown>, applicationId = app.applicationId, auth = owner) =>
    request(ctx.app.getHttpServer())
      .post(`${API}/applications/${applicationId}/vouchers/allocations`)
      .set(auth)
      .send({ recipientUserId: 'sender-1', idempotencyKey: randomUUID(), ...body });

  const templateRow = async (templateId: string) => {
    const res = await request(ctx.app.getHttpServer())
      .get(`${API}/vouchers/templates`)
      .set(bearer(app.token))
      .expect(200);
    return (res.body.data as Array<Record<string, unknown>>).find((t) => t.id === templateId)!;
  };

  it('allocates with 201 and moves the quantity into the template’s allocated_count', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 100 });
    const res = await allocate({ templateId, quantity: 40 }).expect(201);
    expect(res.body).toMatchObject({ success: true, code: 201 });
    expect(res.body.data).toEqual({
      id: expect.any(String),
      applicationId: app.applicationId,
      templateId,
      recipientUserId: 'sender-1',
      quantity: 40,
      remaining: 40,
      sendingCount: 0,
      claimedCount: 0,
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 40, issued_count: 0, remaining: 60 });
  });

  it('refuses a quantity above the remaining stock with 409 INSUFFICIENT_STOCK and changes nothing', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 5 });
    await allocate({ templateId, quantity: 3 }).expect(201);
    expectError(await allocate({ templateId, quantity: 3 }), 409, 'INSUFFICIENT_STOCK');
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 3, remaining: 2 });
    await allocate({ templateId, quantity: 2 }).expect(201);
  });

  it('allocates from an unlimited template (issue_limit 0) up to 10000 per allocation', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 0 });
    await allocate({ templateId, quantity: 10000 }).expect(201);
    expectError(await allocate({ templateId, quantity: 10001 }), 400, 'VALIDATION_FAILED');
  });

  it.each([
    [{ quantity: 0 }, 'quantity'],
    [{ quantity: 1.5 }, 'quantity'],
    [{ quantity: '3' }, 'quantity'],
    [{ quantity: 1, templateId: 'nope' }, 'templateId'],
    [{ quantity: 1, recipientUserId: '' }, 'recipientUserId'],
    [{ quantity: 1, application_id: 'x' }, 'application_id'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const templateId = '00000000-0000-4000-8000-000000000001';
    const res = await allocate({ templateId, ...body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a request without idempotencyKey with 400', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const res = await request(ctx.app.getHttpServer())
      .post(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .set(owner)
      .send({ templateId, recipientUserId: 'sender-1', quantity: 1 });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([{ field: 'idempotencyKey', problem: 'is required' }]);
  });

  it('refuses a sender unknown to the service with 400, and a template that is not active with 409 TEMPLATE_NOT_ACTIVE', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const unknown = await allocate({ templateId, quantity: 1, recipientUserId: 'nobody-here' });
    expectError(unknown, 400, 'VALIDATION_FAILED');
    expect(unknown.body.error.details).toEqual([
      { field: 'recipientUserId', problem: expect.stringMatching(/^is not a known user: a user becomes known with/) },
    ]);
    expect(unknown.body.message).toMatch(/their first call to this service with their own account JWT/);

    const draft = await request(ctx.app.getHttpServer())
      .post(`${API}/vouchers/templates`)
      .set(bearer(app.token))
      .send({
        external_template_id: `draft-${randomUUID()}`,
        name: 'Draft',
        type: 'gift',
        issuer_name: 'I',
        fulfiller_name: 'F',
        fulfillment_category: 'offline_service',
        acquisition_source: 'free',
        validity: { days_after_claim: 5 },
        issue_limit: 10,
      })
      .expect(201);
    expectError(await allocate({ templateId: draft.body.data.id, quantity: 1 }), 409, 'TEMPLATE_NOT_ACTIVE');
  });

  it('refuses allocations while the application is disabled (403 APPLICATION_DISABLED)', async () => {
    const disabled = await seedApplication(ctx, { ownerId: 'alloc-owner' });
    const templateId = await activeTemplate(ctx, disabled, { issue_limit: 10 });
    await request(ctx.app.getHttpServer())
      .patch(`${API}/applications/${disabled.applicationId}`)
      .set(owner)
      .send({ status: 'disabled' })
      .expect(200);
    expectError(await allocate({ templateId, quantity: 1 }, disabled.applicationId), 403, 'APPLICATION_DISABLED');
  });

  it('answers 404 for a template of another application', async () => {
    const other = await seedApplication(ctx, { ownerId: 'alloc-owner' });
    const foreignTemplate = await activeTemplate(ctx, other, { issue_limit: 10 });
    expectError(await allocate({ templateId: foreignTemplate, quantity: 1 }), 404, 'NOT_FOUND');
  });

  it('replays the same idempotencyKey with the same parameters and refuses it with other parameters (409)', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const body = { templateId, recipientUserId: 'sender-1', quantity: 4, idempotencyKey: `retry-${randomUUID()}` };
    const first = await allocate(body).expect(201);
    const again = await allocate(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expectError(await allocate({ ...body, quantity: 5 }), 409, 'IDEMPOTENCY_KEY_REUSED');
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 4 });

    const list = await request(ctx.app.getHttpServer())
      .get(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .query({ templateId })
      .set(owner)
      .expect(200);
    expect(list.body.data.total).toBe(1);
  });

  it('stores no refusal of an unknown recipient: the same idempotencyKey allocates once the user called the service', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const body = { templateId, recipientUserId: 'late-sender', quantity: 2, idempotencyKey: `late-${randomUUID()}` };
    const refused = await allocate(body);
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    // The sender's first call with their own JWT makes them known.
    await request(ctx.app.getHttpServer())
      .get(`${API}/holder/backpack`)
      .set(bearer(await ctx.jwt('late-sender', 'Late Sender')))
      .expect(200);
    const allocated = await allocate(body).expect(201);
    expect(allocated.headers['idempotent-replayed']).toBeUndefined();
    expect(allocated.body.data).toMatchObject({ recipientUserId: 'late-sender', quantity: 2 });
    const replayed = await allocate(body).expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.data).toEqual(allocated.body.data);
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 2 });
  });

  it('stores no refusal of a body that fails validation: the same idempotencyKey works with the corrected body', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const idempotencyKey = `typo-${randomUUID()}`;
    expectError(await allocate({ templateId, quantity: 0, idempotencyKey }), 400, 'VALIDATION_FAILED');
    const corrected = await allocate({ templateId, quantity: 1, idempotencyKey }).expect(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores a refusal of the allocation itself: the same idempotencyKey replays INSUFFICIENT_STOCK', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 1 });
    const body = { templateId, quantity: 2, idempotencyKey: `short-${randomUUID()}` };
    expectError(await allocate(body), 409, 'INSUFFICIENT_STOCK');
    const again = await allocate(body);
    expectError(again, 409, 'INSUFFICIENT_STOCK');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers a snake_case body by naming each unknown field, not only the missing idempotencyKey', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const res = await request(ctx.app.getHttpServer())
      .post(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .set(owner)
      .send({ template_id: templateId, recipient_user_id: 'sender-1', quantity: 1, idempotency_key: 'snake-1' });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'template_id', problem: 'is not a known field' },
        { field: 'recipient_user_id', problem: 'is not a known field' },
        { field: 'idempotency_key', problem: 'is not a known field' },
        { field: 'idempotencyKey', problem: 'is required' },
      ]),
    );
    expect(res.body.message).toMatch(/template_id: is not a known field/);
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 0 });
  });

  it('never allocates more than the stock when 50 creates race for it', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 100 });
    const server = ctx.app.getHttpServer();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        request(server)
          .post(`${API}/applications/${app.applicationId}/vouchers/allocations`)
          .set(owner)
          .send({ templateId, recipientUserId: 'sender-1', quantity: 7, idempotencyKey: randomUUID() }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(created.length + refused.length).toBe(50);
    expect(created).toHaveLength(14); // 14 × 7 = 98 ≤ 100 < 105
    for (const r of refused) expect(r.body.error.code).toBe('INSUFFICIENT_STOCK');
    expect(await templateRow(templateId)).toMatchObject({ allocated_count: 98, remaining: 2 });

    const list = await request(server)
      .get(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .query({ templateId, limit: 100 })
      .set(owner)
      .expect(200);
    const sum = (list.body.data.items as Array<{ quantity: number }>).reduce((total, a) => total + a.quantity, 0);
    expect(sum).toBe(98);
  });

  it('lists newest first with page and the limit of the spec (answered as pageSize), filtered by template', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 10 });
    const ids: string[] = [];
    for (const quantity of [1, 2, 3]) ids.push((await allocate({ templateId, quantity }).expect(201)).body.data.id);
    const page = await request(ctx.app.getHttpServer())
      .get(`${API}/applications/${app.applicationId}/vouchers/allocations`)
      .query({ templateId, page: 2, limit: 2 })
      .set(owner)
      .expect(200);
    expect(page.body.data).toMatchObject({ page: 2, pageSize: 2, total: 3 });
    expect(page.body.data).not.toHaveProperty('limit');
    expect(page.body.data.items.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expectError(
      await request(ctx.app.getHttpServer())
        .get(`${API}/applications/${app.applicationId}/vouchers/allocations`)
        .query({ limit: 101 })
        .set(owner),
      400,
      'VALIDATION_FAILED',
    );
  });
});
