import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { SchemaObject } from '@nestjs/swagger';
import { buildOpenApiDocument } from '@app/platform';
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import {
  activeTemplate,
  API,
  bearer,
  credentialsOf,
  expectError,
  issueRequest,
  redeemRequest,
} from './runtime-fixtures';

/**
 * A holder voucher, in the order the wallet's answer carries them: the voucher's own fields, whose
 * application it is, its template, the send it came from, and the credentials (spec: the only place
 * plaintext appears). Never who holds it nor the application's issue number.
 */
const HOLDER_VOUCHER_FIELDS = [
  'id',
  'application_id',
  'application_name',
  'template_id',
  'template',
  'status',
  'send_id',
  'valid_from',
  'valid_to',
  'issued_at',
  'redeemed_at',
  'qr_token',
  'redeem_code',
];

describe('holder: own vouchers and authorisations', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;

  beforeAll(async () => {
    ctx = await startVoucherApp();
    app = await seedApplication(ctx, { ownerId: 'hv-owner', name: 'Bean Shop' });
    templateId = await activeTemplate(ctx, app, { issue_limit: 0, per_user_limit: 10 });
  });
  afterAll(() => ctx.close());

  const http = () => request(ctx.app.getHttpServer());
  const user = async (id: string) => bearer(await ctx.jwt(id, id));

  it('authorises an application (200, repeatable) so that it may issue to the caller', async () => {
    const me = await user('hv-consenting');
    expectError(
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-consenting' }),
      403,
      'RECIPIENT_NOT_AUTHORIZED',
    );
    const first = await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      application_id: app.applicationId,
      application_name: 'Bean Shop',
      user_id: 'hv-consenting',
      created_at: expect.any(String),
    });
    const again = await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    const list = await http().get(`${API}/holder/authorizations`).set(me).expect(200);
    expect(list.body.data).toEqual([first.body.data]);
    await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-consenting' }).expect(201);
  });

  it('withdraws consent (200), after which an application without a voucher of the user cannot issue (403)', async () => {
    const me = await user('hv-withdrawing');
    await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId }).expect(200);
    const removed = await http().delete(`${API}/holder/authorizations/${app.applicationId}`).set(me).expect(200);
    expect(removed.body.data).toMatchObject({ application_id: app.applicationId, user_id: 'hv-withdrawing' });
    expectError(await http().delete(`${API}/holder/authorizations/${app.applicationId}`).set(me), 404, 'NOT_FOUND');
    expectError(
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-withdrawing' }),
      403,
      'RECIPIENT_NOT_AUTHORIZED',
    );
  });

  it('answers 404 for an unknown application and 400 for a malformed or extra field', async () => {
    const me = await user('hv-bad-input');
    const unknown = randomUUID();
    expectError(
      await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: unknown }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: 'x' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await http()
        .post(`${API}/holder/authorizations`)
        .set(me)
        .send({ application_id: app.applicationId, user_id: 'someone-else' }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('lists the caller’s vouchers with the decrypted QR token and code, and only the caller’s', async () => {
    const me = await user('hv-holder');
    await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId }).expect(200);
    const issued = await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-holder' }).expect(
      201,
    );
    const voucherId = issued.body.data.voucher.id as string;
    expect(JSON.stringify(issued.body)).not.toMatch(/qr_token"|redeem_code"/);

    const res = await http().get(`${API}/holder/vouchers`).set(me).expect(200);
    expect(res.body.data).toMatchObject({ page: 1, pageSize: 20, total: 1 });
    const stored = await credentialsOf(ctx, voucherId);
    expect(res.body.data.items[0]).toEqual({
      id: voucherId,
      application_id: app.applicationId,
      application_name: 'Bean Shop',
      template_id: templateId,
      template: expect.objectContaining({ name: 'Coffee voucher', type: 'gift', issuer_name: 'Bean Shop' }),
      status: 'available',
      send_id: null,
      valid_from: expect.any(String),
      valid_to: expect.any(String),
      issued_at: expect.any(String),
      redeemed_at: null,
      qr_token: stored.qrToken,
      redeem_code: stored.code,
    });

    const other = await http()
      .get(`${API}/holder/vouchers`)
      .set(await user('hv-other'))
      .expect(200);
    expect(other.body.data.items).toEqual([]);
  });

  it('hides the credentials once the voucher is redeemed or past its validity', async () => {
    const me = await user('hv-spent');
    await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId }).expect(200);
    const a = (await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-spent' }).expect(201))
      .body.data.voucher.id as string;
    const b = (await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-spent' }).expect(201))
      .body.data.voucher.id as string;
    const { qrToken } = await credentialsOf(ctx, a);
    await redeemRequest(ctx, app, { type: 'qr_token', value: qrToken }).expect(201);
    await ctx.app
      .get(DataSource)
      .query(
        `UPDATE vouchers SET valid_from = now() - interval '2 days', valid_to = now() - interval '1 day' WHERE id = $1`,
        [b],
      );

    const res = await http().get(`${API}/holder/vouchers`).set(me).expect(200);
    const byId = new Map((res.body.data.items as Array<{ id: string }>).map((v) => [v.id, v]));
    expect(byId.get(a)).toMatchObject({ status: 'redeemed', qr_token: null, redeem_code: null });
    expect(byId.get(b)).toMatchObject({ status: 'expired', qr_token: null, redeem_code: null });
  });

  it('pages the voucher list and validates page and limit', async () => {
    const me = await user('hv-pager');
    await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId }).expect(200);
    for (let i = 0; i < 3; i++) {
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-pager' }).expect(201);
    }
    const page = await http().get(`${API}/holder/vouchers`).query({ page: 2, pageSize: 2 }).set(me).expect(200);
    expect(page.body.data).toMatchObject({ page: 2, pageSize: 2, total: 3 });
    expect(page.body.data.items).toHaveLength(1);
    const beyond = await http().get(`${API}/holder/vouchers`).query({ page: 5, pageSize: 2 }).set(me).expect(200);
    expect(beyond.body.data).toMatchObject({ items: [], total: 3 });
    expectError(await http().get(`${API}/holder/vouchers`).query({ pageSize: 0 }).set(me), 400, 'VALIDATION_FAILED');
    expectError(await http().get(`${API}/holder/vouchers`).query({ page: 'x' }).set(me), 400, 'VALIDATION_FAILED');
  });

  it('answers a holder voucher with exactly the documented fields, the ones it shares with the voucher view documented alike', async () => {
    const me = await user('hv-fields');
    await http().post(`${API}/holder/authorizations`).set(me).send({ application_id: app.applicationId }).expect(200);
    await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: 'hv-fields' }).expect(201);
    const item = (await http().get(`${API}/holder/vouchers`).set(me).expect(200)).body.data.items[0];
    expect(Object.keys(item)).toEqual(HOLDER_VOUCHER_FIELDS);

    const schemas = buildOpenApiDocument(ctx.app, VOUCHER_API_DOCS).components?.schemas as Record<string, SchemaObject>;
    const holder = schemas.HolderVoucherView;
    const voucher = schemas.VoucherView;
    expect(Object.keys(holder.properties ?? {}).sort()).toEqual([...HOLDER_VOUCHER_FIELDS].sort());
    expect([...(holder.required ?? [])].sort()).toEqual([...HOLDER_VOUCHER_FIELDS].sort());
    for (const field of ['id', 'template_id', 'valid_from', 'valid_to', 'issued_at', 'redeemed_at']) {
      expect(holder.properties?.[field]).toEqual(voucher.properties?.[field]);
    }
    // The wallet's status differs only in saying that it shows expiry before any verify.
    expect(holder.properties?.status).toEqual({
      ...(voucher.properties?.status as SchemaObject),
      description: expect.stringContaining('expired as soon as the validity ends'),
    });
  });
});
