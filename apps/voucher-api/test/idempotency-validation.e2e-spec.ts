import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  seedApplication,
  seedAuthorization,
  SeededApplication,
  startVoucherApp,
  VoucherTestContext,
} from './app-context';
import { activeTemplate, expectError, GENEROUS_RATE_LIMITS, issueRequest } from './runtime-fixtures';

jest.setTimeout(60_000);

/** Stripe's rule: a request that fails validation saves nothing under its Idempotency-Key. */
describe('an issue refused by validation under an Idempotency-Key', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
  });
  afterAll(() => ctx.close());

  it('stores nothing: the corrected retry with the same key issues the voucher', async () => {
    const templateId = await activeTemplate(ctx, app);
    const userId = `user-${randomUUID()}`;
    await seedAuthorization(ctx, userId, app.applicationId);
    const key = randomUUID();
    const body = { template_id: templateId, recipient_user_id: userId, external_issue_id: `iss-${randomUUID()}` };

    expectError(await issueRequest(ctx, app, { ...body, recipient_user_id: '' }, key), 400, 'VALIDATION_FAILED');
    const stored = await ctx.app.get(DataSource).query(`SELECT 1 FROM idempotency_keys WHERE key = $1`, [key]);
    expect(stored).toHaveLength(0);

    const corrected = await issueRequest(ctx, app, body, key);
    expect(corrected.status).toBe(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });
});
