import request from 'supertest';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, expectError, GENEROUS_RATE_LIMITS, templateBody } from './runtime-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describe('runtime templates: create, edit, submit, review and lifecycle', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let staff: string;
  const server = () => ctx.app.getHttpServer();
  const create = (body: Record<string, unknown>) =>
    request(server()).post(`${API}/vouchers/templates`).set(bearer(app.token)).send(body);
  const action = (id: string, name: string) =>
    request(server()).post(`${API}/vouchers/templates/${id}/${name}`).set(bearer(app.token));
  const review = (id: string, name: 'approve' | 'reject', body?: Record<string, unknown>) =>
    request(server()).post(`${API}/admin/templates/${id}/${name}`).set(bearer(staff)).send(body);
  const draft = async (overrides: Record<string, unknown> = {}) =>
    (await create(templateBody(overrides)).expect(201)).body.data.id as string;

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
    staff = await ctx.jwt('staff-1', 'Staff', ['platform_admin']);
  });
  afterAll(() => ctx.close());

  describe('create', () => {
    it('creates a draft with every field of the template and answers 201 with snake_case fields', async () => {
      const body = templateBody({
        external_template_id: 'T-FULL',
        type: 'discount',
        fulfillment_category: 'ecommerce_discount',
        acquisition_source: 'merchant_campaign',
        validity: { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' },
        issue_limit: 500,
        per_user_limit: 3,
        description: '10% off',
        // cover_file_id is checked against bot-api's files: template-cover-ownership.e2e-spec.ts covers it.
        usage_rules: { min_order_amount: 1000, stores: ['s1'] },
        fulfillment: { open_mode: 'external', redemption_url: 'https://shop.example.com/redeem' },
        terms: { text: 'One per order' },
      });
      const res = await create(body).expect(201);
      expect(res.body).toMatchObject({ success: true, code: 201 });
      expect(res.body.data).toMatchObject({
        application_id: app.applicationId,
        external_template_id: 'T-FULL',
        name: 'Coffee voucher',
        type: 'discount',
        issuer_name: 'Bean Shop',
        fulfiller_name: 'Bean Shop Downtown',
        fulfillment_category: 'ecommerce_discount',
        acquisition_source: 'merchant_campaign',
        validity: { from: '2026-01-01T00:00:00.000Z', to: '2027-01-01T00:00:00.000Z' },
        issue_limit: 500,
        per_user_limit: 3,
        description: '10% off',
        usage_rules: { min_order_amount: 1000, stores: ['s1'] },
        fulfillment: { open_mode: 'external', redemption_url: 'https://shop.example.com/redeem' },
        terms: { text: 'One per order' },
        status: 'draft',
        issued_count: 0,
        allocated_count: 0,
        remaining: 500,
        rejection_reason: null,
      });
    });

    it('defaults per_user_limit to 1 and reports unlimited stock (issue_limit 0) as remaining null', async () => {
      const res = await create(templateBody({ issue_limit: 0 })).expect(201);
      expect(res.body.data).toMatchObject({ per_user_limit: 1, issue_limit: 0, remaining: null });
      expect(res.body.data.validity).toEqual({ days_after_claim: 30 });
    });

    it.each([
      'external_template_id',
      'name',
      'type',
      'issuer_name',
      'fulfiller_name',
      'fulfillment_category',
      'acquisition_source',
      'validity',
      'issue_limit',
    ])('answers 400 VALIDATION_FAILED naming %s when it is missing', async (field) => {
      const body = templateBody();
      delete body[field];
      const res = await create(body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it.each<[string, Record<string, unknown>]>([
      ['type outside the enum', { type: 'coupon' }],
      ['fulfillment_category outside the enum', { fulfillment_category: 'digital' }],
      ['acquisition_source outside the enum', { acquisition_source: 'paid' }],
      ['per_user_limit 0', { per_user_limit: 0 }],
      ['per_user_limit 101', { per_user_limit: 101 }],
      ['issue_limit -1', { issue_limit: -1 }],
      ['issue_limit not an integer', { issue_limit: 1.5 }],
      ['days_after_claim 0', { validity: { days_after_claim: 0 } }],
      ['days_after_claim 3651', { validity: { days_after_claim: 3651 } }],
      [
        'both fixed and relative validity',
        { validity: { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z', days_after_claim: 3 } },
      ],
      ['neither fixed nor relative validity', { validity: {} }],
      ['from without to', { validity: { from: '2026-01-01T00:00:00Z' } }],
      ['from after to', { validity: { from: '2027-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } }],
      ['a date that is not ISO 8601', { validity: { from: '01/02/2026', to: '2027-01-01T00:00:00Z' } }],
      ['an external cover image URL', { cover_file_id: 'https://cdn.example.com/a.png' }],
      ['an http redemption_url', { fulfillment: { redemption_url: 'http://shop.example.com/r' } }],
      ['an unknown open mode', { fulfillment: { open_mode: 'popup' } }],
      ['an unknown field', { colour: 'red' }],
      ['per_user_limit null', { per_user_limit: null }],
      ['name null', { name: null }],
      ['days_after_claim null', { validity: { days_after_claim: null } }],
    ])('answers 400 VALIDATION_FAILED for %s', async (_case, overrides) => {
      expectError(await create(templateBody(overrides)), 400, 'VALIDATION_FAILED');
    });

    it('answers 400 naming the field, never a 500, for a NUL character in a string or in nested structured data', async () => {
      const inName = await create(templateBody({ name: 'Coffee\u0000' }));
      expectError(inName, 400, 'VALIDATION_FAILED');
      expect(inName.body.error.details).toEqual([{ field: 'body.name', problem: 'contains a NUL character' }]);
      const nested = await create(templateBody({ usage_rules: { stores: ['s1', 's\u0000'] } }));
      expectError(nested, 400, 'VALIDATION_FAILED');
      expect(nested.body.error.details[0].field).toBe('body.usage_rules.stores[1]');
      const id = await draft();
      await action(id, 'submit').expect(200);
      expectError(await review(id, 'reject', { reason: 'bad\u0000' }), 400, 'VALIDATION_FAILED');
    });

    it('accepts the range limits: per_user_limit 1 and 100, days_after_claim 1 and 3650', async () => {
      await create(templateBody({ per_user_limit: 100, validity: { days_after_claim: 3650 } })).expect(201);
      await create(templateBody({ per_user_limit: 1, validity: { days_after_claim: 1 } })).expect(201);
      // null stands for an absent key, so it can never reach the database's validity CHECK.
      const nulled = await create(templateBody({ validity: { from: null, to: null, days_after_claim: 3 } })).expect(
        201,
      );
      expect(nulled.body.data.validity).toEqual({ days_after_claim: 3 });
    });

    it('answers 409 DUPLICATE_EXTERNAL_ID when external_template_id is reused in the application, not across applications', async () => {
      await create(templateBody({ external_template_id: 'T-DUP' })).expect(201);
      expectError(await create(templateBody({ external_template_id: 'T-DUP' })), 409, 'DUPLICATE_EXTERNAL_ID');
      const other = await seedApplication(ctx, { ownerId: 'owner-2' });
      await request(server())
        .post(`${API}/vouchers/templates`)
        .set(bearer(other.token))
        .send(templateBody({ external_template_id: 'T-DUP' }))
        .expect(201);
    });

    it('lists all templates of the calling application, optionally by status', async () => {
      const fresh = await seedApplication(ctx, { ownerId: 'owner-3' });
      const post = (body: Record<string, unknown>) =>
        request(server()).post(`${API}/vouchers/templates`).set(bearer(fresh.token)).send(body).expect(201);
      const a = (await post(templateBody({ name: 'A' }))).body.data.id;
      const b = (await post(templateBody({ name: 'B' }))).body.data.id;
      await request(server()).post(`${API}/vouchers/templates/${b}/submit`).set(bearer(fresh.token)).expect(200);
      const all = await request(server()).get(`${API}/vouchers/templates`).set(bearer(fresh.token)).expect(200);
      expect(all.body.data.map((t: { id: string }) => t.id)).toEqual([a, b]);
      const reviewing = await request(server())
        .get(`${API}/vouchers/templates?status=reviewing`)
        .set(bearer(fresh.token))
        .expect(200);
      expect(reviewing.body.data.map((t: { id: string }) => t.id)).toEqual([b]);
      expectError(
        await request(server()).get(`${API}/vouchers/templates?status=bogus`).set(bearer(fresh.token)),
        400,
        'VALIDATION_FAILED',
      );
      const one = await request(server()).get(`${API}/vouchers/templates/${a}`).set(bearer(fresh.token)).expect(200);
      expect(one.body.data).toMatchObject({ id: a, name: 'A' });
    });
  });

  describe('edit', () => {
    it('edits a draft; validity is replaced as a whole', async () => {
      const id = await draft();
      const res = await request(server())
        .patch(`${API}/vouchers/templates/${id}`)
        .set(bearer(app.token))
        .send({ name: 'Tea voucher', validity: { from: '2026-01-01T00:00:00Z', to: '2026-06-01T00:00:00Z' } })
        .expect(200);
      expect(res.body.data).toMatchObject({
        name: 'Tea voucher',
        validity: { from: '2026-01-01T00:00:00.000Z', to: '2026-06-01T00:00:00.000Z' },
        status: 'draft',
      });
    });

    it('refuses bad values on edit with 400 and editing outside draft or rejected with 409', async () => {
      const id = await draft();
      expectError(
        await request(server())
          .patch(`${API}/vouchers/templates/${id}`)
          .set(bearer(app.token))
          .send({ per_user_limit: 0 }),
        400,
        'VALIDATION_FAILED',
      );
      for (const body of [{ name: null }, { issue_limit: null }, { validity: { days_after_claim: null } }]) {
        expectError(
          await request(server()).patch(`${API}/vouchers/templates/${id}`).set(bearer(app.token)).send(body),
          400,
          'VALIDATION_FAILED',
        );
      }
      const cleared = await request(server())
        .patch(`${API}/vouchers/templates/${id}`)
        .set(bearer(app.token))
        .send({ description: null })
        .expect(200);
      expect(cleared.body.data.description).toBeNull();
      await action(id, 'submit').expect(200);
      expectError(
        await request(server()).patch(`${API}/vouchers/templates/${id}`).set(bearer(app.token)).send({ name: 'x' }),
        409,
        'CONFLICT',
      );
    });

    it('answers 409 DUPLICATE_EXTERNAL_ID when an edit takes an external_template_id already in use', async () => {
      await draft({ external_template_id: 'T-EDIT-1' });
      const id = await draft();
      expectError(
        await request(server())
          .patch(`${API}/vouchers/templates/${id}`)
          .set(bearer(app.token))
          .send({ external_template_id: 'T-EDIT-1' }),
        409,
        'DUPLICATE_EXTERNAL_ID',
      );
    });
  });

  describe('submit and review', () => {
    it('submit moves a draft to reviewing; staff see it in the queue and approve it to active', async () => {
      const id = await draft();
      const submitted = await action(id, 'submit').expect(200);
      expect(submitted.body.data).toMatchObject({ id, status: 'reviewing' });
      expect(submitted.body.data.submitted_at).toEqual(expect.any(String));
      const queue = await request(server())
        .get(`${API}/admin/templates?status=reviewing`)
        .set(bearer(staff))
        .expect(200);
      expect(queue.body.data.items.map((t: { id: string }) => t.id)).toContain(id);
      expect(queue.body.data.items.every((t: { status: string }) => t.status === 'reviewing')).toBe(true);
      const approved = await review(id, 'approve').expect(200);
      expect(approved.body.data).toMatchObject({ id, status: 'active' });
    });

    it('rejection records the reason; a rejected template can be edited and resubmitted', async () => {
      const id = await draft();
      await action(id, 'submit').expect(200);
      const rejected = await review(id, 'reject', { reason: 'Cover image missing' }).expect(200);
      expect(rejected.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Cover image missing' });
      const edited = await request(server())
        .patch(`${API}/vouchers/templates/${id}`)
        .set(bearer(app.token))
        .send({ description: 'Now with a cover' })
        .expect(200);
      expect(edited.body.data).toMatchObject({ status: 'rejected', description: 'Now with a cover' });
      const resubmitted = await action(id, 'submit').expect(200);
      expect(resubmitted.body.data).toMatchObject({ status: 'reviewing', rejection_reason: null });
    });

    it('refuses a rejection without a reason (400) and review of a template not under review (409)', async () => {
      const id = await draft();
      expectError(await review(id, 'approve'), 409, 'CONFLICT');
      await action(id, 'submit').expect(200);
      expectError(await review(id, 'reject', {}), 400, 'VALIDATION_FAILED');
      await review(id, 'approve').expect(200);
      expectError(await review(id, 'reject', { reason: 'late' }), 409, 'CONFLICT');
      expectError(await action(id, 'submit'), 409, 'CONFLICT');
    });

    it('keeps review to platform staff and answers 404 for an unknown template', async () => {
      const id = await draft();
      await action(id, 'submit').expect(200);
      const owner = await ctx.jwt(app.ownerId);
      expectError(
        await request(server()).post(`${API}/admin/templates/${id}/approve`).set(bearer(owner)),
        403,
        'FORBIDDEN',
      );
      expectError(
        await request(server()).get(`${API}/admin/templates?status=reviewing`).set(bearer(app.token)),
        401,
        'UNAUTHORIZED',
      );
      expectError(await review('00000000-0000-4000-8000-000000000000', 'approve'), 404, 'NOT_FOUND');
    });

    it('answers 404 for submitting an unknown or malformed template id', async () => {
      expectError(await action('00000000-0000-4000-8000-000000000000', 'submit'), 404, 'NOT_FOUND');
      expectError(await action('not-an-id', 'submit'), 404, 'NOT_FOUND');
    });
  });

  describe('pause, resume, end, archive', () => {
    const activeId = async () => {
      const id = await draft();
      await action(id, 'submit').expect(200);
      await review(id, 'approve').expect(200);
      return id;
    };

    it('pauses and resumes an active template, ends it and archives it', async () => {
      const id = await activeId();
      expect((await action(id, 'pause').expect(200)).body.data.status).toBe('paused');
      expect((await action(id, 'resume').expect(200)).body.data.status).toBe('active');
      expect((await action(id, 'pause').expect(200)).body.data.status).toBe('paused');
      expect((await action(id, 'end').expect(200)).body.data.status).toBe('ended');
      expect((await action(id, 'archive').expect(200)).body.data.status).toBe('archived');
    });

    it('ends an active template directly and archives drafts and rejected templates', async () => {
      const id = await activeId();
      expect((await action(id, 'end').expect(200)).body.data.status).toBe('ended');
      const d = await draft();
      expect((await action(d, 'archive').expect(200)).body.data.status).toBe('archived');
      const r = await draft();
      await action(r, 'submit').expect(200);
      await review(r, 'reject', { reason: 'no' }).expect(200);
      expect((await action(r, 'archive').expect(200)).body.data.status).toBe('archived');
    });

    it.each<[string, string]>([
      ['draft', 'pause'],
      ['draft', 'resume'],
      ['draft', 'end'],
      ['reviewing', 'archive'],
      ['reviewing', 'pause'],
      ['reviewing', 'submit'],
      ['active', 'resume'],
      ['active', 'archive'],
      ['active', 'submit'],
      ['paused', 'pause'],
      ['paused', 'archive'],
      ['ended', 'resume'],
      ['ended', 'pause'],
      ['ended', 'submit'],
      ['archived', 'submit'],
      ['archived', 'resume'],
      ['archived', 'archive'],
    ])('answers 409 CONFLICT for the illegal transition from %s by %s and keeps the state', async (from, move) => {
      const id = await draft();
      const path: Record<string, string[]> = {
        draft: [],
        reviewing: ['submit'],
        active: ['submit', 'approve'],
        paused: ['submit', 'approve', 'pause'],
        ended: ['submit', 'approve', 'end'],
        archived: ['archive'],
      };
      for (const step of path[from]) {
        if (step === 'approve') await review(id, 'approve').expect(200);
        else await action(id, step).expect(200);
      }
      expectError(await action(id, move), 409, 'CONFLICT');
      const current = await request(server()).get(`${API}/vouchers/templates/${id}`).set(bearer(app.token)).expect(200);
      expect(current.body.data.status).toBe(from);
    });
  });
});
