import { createVoucherApiClient, type VoucherApiClient } from '@clients/voucher-api';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { startVoucherApp, VoucherTestContext } from './app-context';
import { GENEROUS_RATE_LIMITS } from './runtime-fixtures';

const API = '/api/v1/open-platform';

/** The business payload of a success; a failure names its status and error body. */
function payload<T>(result: { data?: { data?: T }; error?: unknown; response: Response }): T {
  const data = result.data?.data;
  if (data === undefined) {
    throw new Error(`HTTP ${result.response.status}: ${JSON.stringify(result.error ?? result.data)}`);
  }
  return data;
}

/**
 * An integrator's whole flow through the client generated from the OpenAPI document, against the app
 * listening on 127.0.0.1: paths, parameters, bodies and answers are all checked by the compiler.
 */
describe('typed voucher-api client', () => {
  let ctx: VoucherTestContext;
  let baseUrl: string;
  const as = async (sub: string, roles: string[] = []): Promise<VoucherApiClient> =>
    createVoucherApiClient(baseUrl, await ctx.jwt(sub, sub, roles));

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    await ctx.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(ctx.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => ctx.close());

  it('creates an application and a token, gets a template approved, then issues, shows, verifies, redeems and reverses a voucher', async () => {
    const owner = await as('typed-owner');
    const application = payload(await owner.POST(`${API}/applications`, { body: { name: 'Typed coffee shop' } }));
    expect(application.features.vouchers).toBe(true);
    const created = payload(
      await owner.POST(`${API}/applications/{id}/tokens`, {
        params: { path: { id: application.id } },
        body: {
          name: 'till',
          permissions: [
            'vouchers:templates:write',
            'vouchers:issue',
            'vouchers:verify',
            'vouchers:redeem',
            'vouchers:reverse',
            'vouchers:read',
          ],
        },
      }),
    );
    expect(created.token.startsWith('sop_')).toBe(true);
    const shop = createVoucherApiClient(baseUrl, created.token);

    const template = payload(
      await shop.POST(`${API}/vouchers/templates`, {
        body: {
          external_template_id: `typed-${randomUUID()}`,
          name: 'Flat white',
          type: 'gift',
          issuer_name: 'Bean Shop',
          fulfiller_name: 'Bean Shop Downtown',
          fulfillment_category: 'offline_service',
          acquisition_source: 'free',
          validity: { days_after_claim: 30 },
          issue_limit: 10,
        },
      }),
    );
    expect(template.status).toBe('draft');
    const templateId = { params: { path: { templateId: template.id } } };
    expect(payload(await shop.POST(`${API}/vouchers/templates/{templateId}/submit`, templateId)).status).toBe(
      'reviewing',
    );
    const staff = await as('typed-staff', ['platform_admin']);
    expect(payload(await staff.POST(`${API}/admin/templates/{templateId}/approve`, templateId)).status).toBe('active');

    const holder = await as('typed-holder');
    const consent = payload(
      await holder.POST(`${API}/holder/authorizations`, { body: { application_id: application.id } }),
    );
    expect(consent.application_name).toBe('Typed coffee shop');

    const issued = payload(
      await shop.POST(`${API}/vouchers/issue`, {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: {
          template_id: template.id,
          external_issue_id: `issue-${randomUUID()}`,
          recipient_user_id: 'typed-holder',
        },
      }),
    );
    expect(issued.voucher).toMatchObject({ template_id: template.id, status: 'available' });

    const wallet = payload(await holder.GET(`${API}/holder/vouchers`, { params: { query: { pageSize: 10 } } }));
    const shown = wallet.items.find((voucher) => voucher.id === issued.voucher.id);
    expect(shown?.template.name).toBe('Flat white');
    const qrToken = shown?.qr_token;
    const code = shown?.redeem_code;
    if (!qrToken || !code) throw new Error('the wallet shows no credential for a live voucher');

    const verified = payload(
      await shop.POST(`${API}/vouchers/verify`, { body: { credential: { type: 'redeem_code', value: code } } }),
    );
    expect(verified).toMatchObject({ redeemable: true, voucher: { id: issued.voucher.id, status: 'available' } });

    const redemption = payload(
      await shop.POST(`${API}/vouchers/redeem`, {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: { credential: { type: 'qr_token', value: qrToken }, external_order_id: 'order-1' },
      }),
    );
    expect(redemption).toMatchObject({ status: 'succeeded', reversal: null, voucher: { status: 'redeemed' } });

    const reversal = payload(
      await shop.POST(`${API}/vouchers/redemptions/{redemptionId}/reverse`, {
        params: { path: { redemptionId: redemption.id }, header: { 'Idempotency-Key': randomUUID() } },
        body: { reason: 'order cancelled' },
      }),
    );
    expect(reversal).toMatchObject({
      redemption_id: redemption.id,
      reason: 'order cancelled',
      redemption: { status: 'reversed' },
      voucher: { id: issued.voucher.id, status: 'available' },
    });
    const record = payload(
      await shop.GET(`${API}/vouchers/redemptions/{redemptionId}`, {
        params: { path: { redemptionId: redemption.id } },
      }),
    );
    expect(record.reversal?.id).toBe(reversal.id);
  });

  it('answers a refusal in the typed error envelope with the business code', async () => {
    const shop = createVoucherApiClient(baseUrl, 'sop_not-a-real-token');
    const refused = await shop.GET(`${API}/me`);
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('UNAUTHORIZED');
  });
});
