import request from 'supertest';
import { startVoucherApp, VoucherTestContext } from './app-context';

const API = '/api/v1/open-platform';

/**
 * The whole voucher story through HTTP only: console owner, application token, platform staff,
 * sender, recipient and store each use their own credentials.
 */
describe('voucher story end to end', () => {
  let ctx: VoucherTestContext;

  beforeAll(async () => {
    ctx = await startVoucherApp();
  });
  afterAll(() => ctx.close());

  it('goes from a new application to a voucher redeemed in a store, with stock and counters consistent', async () => {
    const server = ctx.app.getHttpServer();
    const owner = `Bearer ${await ctx.jwt('story-owner', 'Olivia Owner')}`;
    const staff = `Bearer ${await ctx.jwt('story-staff', 'Sam Staff', ['platform_admin'])}`;
    const sender = `Bearer ${await ctx.jwt('story-sender', 'Sven Sender')}`;
    const recipient = `Bearer ${await ctx.jwt('story-recipient', 'Rita Recipient')}`;

    // The owner creates an application and a token; the plaintext token is shown once.
    const app = await request(server)
      .post(`${API}/applications`)
      .set('Authorization', owner)
      .send({ name: 'Bean Shop' });
    expect(app.status).toBe(201);
    const applicationId = app.body.data.id as string;
    const tokenRes = await request(server)
      .post(`${API}/applications/${applicationId}/tokens`)
      .set('Authorization', owner)
      .send({
        name: 'shop backend',
        permissions: ['vouchers:read', 'vouchers:templates:write', 'vouchers:verify', 'vouchers:redeem'],
      });
    expect(tokenRes.status).toBe(201);
    const appToken = `Bearer ${tokenRes.body.data.token as string}`;
    expect(tokenRes.body.data.token).toMatch(/^sop_/);

    // The token creates and submits a template; staff approve it.
    const template = await request(server)
      .post(`${API}/vouchers/templates`)
      .set('Authorization', appToken)
      .send({
        external_template_id: 'latte-2026',
        name: 'Free latte',
        type: 'gift',
        issuer_name: 'Bean Shop',
        fulfiller_name: 'Bean Shop Downtown',
        fulfillment_category: 'offline_service',
        acquisition_source: 'merchant_campaign',
        validity: { days_after_claim: 30 },
        issue_limit: 10,
      });
    expect(template.status).toBe(201);
    expect(template.body.data.status).toBe('draft');
    const templateId = template.body.data.id as string;
    const submitted = await request(server)
      .post(`${API}/vouchers/templates/${templateId}/submit`)
      .set('Authorization', appToken);
    expect(submitted.status).toBe(200);
    expect(submitted.body.data.status).toBe('reviewing');
    const approved = await request(server)
      .post(`${API}/admin/templates/${templateId}/approve`)
      .set('Authorization', staff);
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe('active');

    // The sender signs in once (so the service knows the user); the owner finds them and allocates 3 units.
    await request(server).get(`${API}/holder/backpack`).set('Authorization', sender).expect(200);
    await request(server).get(`${API}/holder/inbox`).set('Authorization', recipient).expect(200);
    const found = await request(server)
      .get(`${API}/applications/${applicationId}/vouchers/recipients`)
      .query({ keyword: 'sven' })
      .set('Authorization', owner)
      .expect(200);
    expect(found.body.data).toEqual([{ id: 'story-sender', name: 'Sven Sender' }]);
    const allocation = await request(server)
      .post(`${API}/applications/${applicationId}/vouchers/allocations`)
      .set('Authorization', owner)
      .send({ templateId, recipientUserId: 'story-sender', quantity: 3, idempotencyKey: 'alloc-story-1' });
    expect(allocation.status).toBe(201);
    expect(allocation.body.data).toMatchObject({
      quantity: 3,
      remaining: 3,
      sendingCount: 0,
      claimedCount: 0,
      status: 'active',
    });
    const allocationId = allocation.body.data.id as string;

    // Allocation creates no voucher and no credential.
    const beforeClaim = await request(server).get(`${API}/holder/vouchers`).set('Authorization', recipient).expect(200);
    expect(beforeClaim.body.data.items).toEqual([]);

    // The sender sees the stock in the backpack and sends one unit.
    const backpack = await request(server).get(`${API}/holder/backpack`).set('Authorization', sender).expect(200);
    expect(backpack.body.data.items).toHaveLength(1);
    expect(backpack.body.data.items[0]).toMatchObject({
      id: allocationId,
      remaining: 3,
      template: { name: 'Free latte' },
    });
    const send = await request(server)
      .post(`${API}/holder/backpack/${allocationId}/sends`)
      .set('Authorization', sender)
      .send({ recipient_user_id: 'story-recipient' });
    expect(send.status).toBe(201);
    expect(send.body.data).toMatchObject({
      allocation_id: allocationId,
      recipient_user_id: 'story-recipient',
      status: 'sending',
    });
    const sendId = send.body.data.id as string;

    // The recipient finds it in the inbox and claims it.
    const inbox = await request(server).get(`${API}/holder/inbox`).set('Authorization', recipient).expect(200);
    expect(inbox.body.data.items).toEqual([
      expect.objectContaining({
        id: sendId,
        status: 'sending',
        sender_name: 'Sven Sender',
        template: expect.objectContaining({ id: templateId }),
      }),
    ]);
    const claim = await request(server).post(`${API}/holder/sends/${sendId}/claim`).set('Authorization', recipient);
    expect(claim.status).toBe(201);
    expect(claim.body.data.send).toMatchObject({ id: sendId, status: 'claimed' });
    expect(claim.body.data.voucher).toMatchObject({ status: 'available', recipient_user_id: 'story-recipient' });
    expect(JSON.stringify(claim.body)).not.toMatch(/qr_token|redeem_code/);
    const voucherId = claim.body.data.voucher.id as string;

    // The holder view is the one place with the plaintext credentials.
    const wallet = await request(server).get(`${API}/holder/vouchers`).set('Authorization', recipient).expect(200);
    expect(wallet.body.data.items).toHaveLength(1);
    const held = wallet.body.data.items[0];
    expect(held).toMatchObject({ id: voucherId, status: 'available', send_id: sendId, application_id: applicationId });
    expect(held.qr_token).toEqual(expect.any(String));
    expect(held.redeem_code).toMatch(/^[A-HJ-KMNP-Z2-9]{6}$/);

    // A store verifies and redeems the code with the application token (code typed loosely).
    const typed = `${held.redeem_code.slice(0, 3).toLowerCase()}-${held.redeem_code.slice(3)}`;
    const verify = await request(server)
      .post(`${API}/vouchers/verify`)
      .set('Authorization', appToken)
      .send({ credential: { type: 'redeem_code', value: typed } });
    expect(verify.status).toBe(200);
    expect(verify.body.data.voucher).toMatchObject({ id: voucherId, status: 'available' });
    expect(JSON.stringify(verify.body)).not.toContain(held.redeem_code);
    const redeem = await request(server)
      .post(`${API}/vouchers/redeem`)
      .set('Authorization', appToken)
      .set('Idempotency-Key', 'redeem-story-1')
      .send({ credential: { type: 'redeem_code', value: typed }, external_order_id: 'order-1', store_id: 'store-7' });
    expect(redeem.status).toBe(201);
    expect(JSON.stringify(redeem.body)).not.toContain(held.redeem_code);

    // Afterwards: the voucher is redeemed (credentials no longer shown) and every counter adds up.
    const after = await request(server).get(`${API}/holder/vouchers`).set('Authorization', recipient).expect(200);
    expect(after.body.data.items[0]).toMatchObject({
      id: voucherId,
      status: 'redeemed',
      qr_token: null,
      redeem_code: null,
    });
    const allocations = await request(server)
      .get(`${API}/applications/${applicationId}/vouchers/allocations`)
      .query({ templateId })
      .set('Authorization', owner)
      .expect(200);
    expect(allocations.body.data.items).toEqual([
      expect.objectContaining({
        id: allocationId,
        quantity: 3,
        remaining: 2,
        sendingCount: 0,
        claimedCount: 1,
        status: 'active',
      }),
    ]);
    const templates = await request(server).get(`${API}/vouchers/templates`).set('Authorization', appToken).expect(200);
    const stock = (templates.body.data as Array<{ id: string }>).find((t) => t.id === templateId);
    expect(stock).toMatchObject({ issue_limit: 10, allocated_count: 3, issued_count: 0, remaining: 7 });
  });
});
