import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DEFAULT_RATE_LIMITS } from '../src/config/rate-limit.policy';
import { VoucherCredentials } from '../src/vouchers/voucher-credentials';
import { seedAuthorization, SeededApplication, VoucherTestContext } from './app-context';

export const API = '/api/v1/open-platform';

/**
 * Functional test files make more calls per minute than the production defaults allow; they raise
 * every limit through configuration (the rate-limit test file keeps the defaults).
 */
export const GENEROUS_RATE_LIMITS = {
  RATE_LIMITS: Object.keys(DEFAULT_RATE_LIMITS)
    .map((name) => `${name}=100000`)
    .join(','),
};

export function templateBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_template_id: `tpl-${randomUUID()}`,
    name: 'Coffee voucher',
    type: 'gift',
    issuer_name: 'Bean Shop',
    fulfiller_name: 'Bean Shop Downtown',
    fulfillment_category: 'offline_service',
    acquisition_source: 'free',
    validity: { days_after_claim: 30 },
    issue_limit: 0,
    ...overrides,
  };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/** Creates, submits and (as platform staff) approves a template; returns its id. */
export async function activeTemplate(
  ctx: VoucherTestContext,
  app: SeededApplication,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const server = ctx.app.getHttpServer();
  const created = await request(server)
    .post(`${API}/vouchers/templates`)
    .set(bearer(app.token))
    .send(templateBody(overrides))
    .expect(201);
  const id = created.body.data.id as string;
  await request(server).post(`${API}/vouchers/templates/${id}/submit`).set(bearer(app.token)).expect(200);
  const admin = await ctx.jwt('staff-1', 'Staff', ['platform_admin']);
  await request(server).post(`${API}/admin/templates/${id}/approve`).set(bearer(admin)).expect(200);
  return id;
}

export function issueRequest(
  ctx: VoucherTestContext,
  app: SeededApplication,
  body: { template_id: string; recipient_user_id: string; external_issue_id?: string },
  key = randomUUID(),
) {
  return request(ctx.app.getHttpServer())
    .post(`${API}/vouchers/issue`)
    .set(bearer(app.token))
    .set('Idempotency-Key', key)
    .send({ external_issue_id: `iss-${randomUUID()}`, ...body });
}

/** Issues one voucher to a freshly authorised user; returns the voucher id and its plaintext credentials. */
export async function issuedVoucher(
  ctx: VoucherTestContext,
  app: SeededApplication,
  templateId: string,
  userId = `user-${randomUUID()}`,
): Promise<{ id: string; qrToken: string; code: string; userId: string }> {
  await seedAuthorization(ctx, userId, app.applicationId);
  const res = await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: userId }).expect(201);
  const id = res.body.data.voucher.id as string;
  return { id, userId, ...(await credentialsOf(ctx, id)) };
}

/** What the holder's wallet would display: decrypted from the stored ciphertexts. */
export async function credentialsOf(
  ctx: VoucherTestContext,
  voucherId: string,
): Promise<{ qrToken: string; code: string }> {
  const [row]: Array<{ qr_token_enc: string; code_enc: string }> = await ctx.app
    .get(DataSource)
    .query(`SELECT qr_token_enc, code_enc FROM vouchers WHERE id = $1`, [voucherId]);
  const credentials = ctx.app.get(VoucherCredentials);
  return {
    qrToken: credentials.decrypt(voucherId, 'qr_token', row.qr_token_enc),
    code: credentials.decrypt(voucherId, 'redeem_code', row.code_enc),
  };
}

export function redeemRequest(
  ctx: VoucherTestContext,
  app: SeededApplication,
  credential: { type: 'qr_token' | 'redeem_code'; value: string },
  key = randomUUID(),
  extra: Record<string, unknown> = {},
) {
  return request(ctx.app.getHttpServer())
    .post(`${API}/vouchers/redeem`)
    .set(bearer(app.token))
    .set('Idempotency-Key', key)
    .send({ credential, external_order_id: `order-${randomUUID()}`, ...extra });
}

/** Every failed runtime call answers the voucher envelope with the business code. */
export function expectError(res: request.Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, code: status, error: { code } });
  expect(typeof res.body.message).toBe('string');
  expect(res.body.meta.requestId).toEqual(expect.any(String));
}
