import request from 'supertest';
import { startVoucherApp, VoucherTestContext } from './app-context';

const BASE = '/api/v1/open-platform/applications';

describe('console: applications', () => {
  let ctx: VoucherTestContext;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    ctx = await startVoucherApp();
    alice = `Bearer ${await ctx.jwt('owner-alice', 'Alice')}`;
    bob = `Bearer ${await ctx.jwt('owner-bob', 'Bob')}`;
  });
  afterAll(() => ctx.close());

  const http = () => request(ctx.app.getHttpServer());

  it('creates an application with 201, defaults allowed_origins to ["*"] and opens the vouchers feature', async () => {
    const res = await http().post(BASE).set('Authorization', alice).send({ name: 'Coffee rewards' }).expect(201);
    expect(res.body).toMatchObject({ success: true, code: 201 });
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Coffee rewards',
      description: null,
      status: 'active',
      allowed_origins: ['*'],
      features: { vouchers: true },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.meta.requestId).toEqual(expect.any(String));
  });

  it('normalises host patterns (case, duplicates) and keeps their order', async () => {
    const res = await http()
      .post(BASE)
      .set('Authorization', alice)
      .send({
        name: 'Shop',
        description: 'Web shop',
        allowed_origins: ['Shop.Example.com', '*.example.com', 'shop.example.com'],
      })
      .expect(201);
    expect(res.body.data.allowed_origins).toEqual(['shop.example.com', '*.example.com']);
    expect(res.body.data.description).toBe('Web shop');
  });

  it.each([
    [{ name: 'x', allowed_origins: ['https://shop.example.com'] }, 'allowed_origins'],
    [{ name: 'x', allowed_origins: ['shop.example.com:443'] }, 'allowed_origins'],
    [{ name: 'x', allowed_origins: ['*.com'] }, 'allowed_origins'],
    [{ name: 'x', allowed_origins: [] }, 'allowed_origins'],
    [{ name: 'x', allowed_origins: null }, 'allowed_origins'],
    [{ name: '' }, 'name'],
    [{}, 'name'],
    [{ name: 'x', owner_id: 'owner-bob' }, 'owner_id'],
  ])('refuses %j with 400 VALIDATION_FAILED naming %s', async (body, field) => {
    const res = await http().post(BASE).set('Authorization', alice).send(body).expect(400);
    expect(res.body).toMatchObject({ success: false, code: 400, error: { code: 'VALIDATION_FAILED' } });
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a call without an account JWT with 401, and an application token with 401', async () => {
    const none = await http().get(BASE).expect(401);
    expect(none.body).toMatchObject({ success: false, code: 401, error: { code: 'UNAUTHORIZED' } });
    await http().get(BASE).set('Authorization', 'Bearer sop_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG').expect(401);
  });

  it('lists only the caller’s applications and patches name, description, origins and status', async () => {
    const created = await http().post(BASE).set('Authorization', bob).send({ name: 'Bob app' }).expect(201);
    const id = created.body.data.id as string;

    const list = await http().get(BASE).set('Authorization', bob).expect(200);
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([id]);

    const patched = await http()
      .patch(`${BASE}/${id}`)
      .set('Authorization', bob)
      .send({ name: 'Bob shop', description: null, allowed_origins: ['*.bob.example'], status: 'disabled' })
      .expect(200);
    expect(patched.body).toMatchObject({ success: true, code: 200 });
    expect(patched.body.data).toMatchObject({
      id,
      name: 'Bob shop',
      description: null,
      allowed_origins: ['*.bob.example'],
      status: 'disabled',
    });

    const got = await http().get(`${BASE}/${id}`).set('Authorization', bob).expect(200);
    expect(got.body.data).toEqual(patched.body.data);
  });

  it('refuses an unknown status and a null name in PATCH with 400', async () => {
    const created = await http().post(BASE).set('Authorization', bob).send({ name: 'Patch me' }).expect(201);
    const id = created.body.data.id as string;
    for (const body of [{ status: 'deleted' }, { name: null }, { features: { vouchers: false } }]) {
      const res = await http().patch(`${BASE}/${id}`).set('Authorization', bob).send(body).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('answers 404 for an unknown or malformed application id', async () => {
    const res = await http()
      .get(`${BASE}/00000000-0000-4000-8000-000000000000`)
      .set('Authorization', alice)
      .expect(404);
    expect(res.body).toMatchObject({ success: false, code: 404, error: { code: 'NOT_FOUND' } });
    await http().get(`${BASE}/not-a-uuid`).set('Authorization', alice).expect(404);
  });
});
