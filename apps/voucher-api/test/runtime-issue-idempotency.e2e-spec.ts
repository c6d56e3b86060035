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

/** The issue's claim shares its first statement with the checks: a key still runs once, answers once. */
describe('issue idempotency, claimed in the issuing transaction', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  const db = () => ctx.app.get(DataSource);

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
  });
  afterAll(() => ctx.close());

  it('parallel retries with one key issue once: each gets the original 201 or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const templateId = await activeTemplate(ctx, app, { per_user_limit: 100 });
    const userId = `user-${randomUUID()}`;
    await seedAuthorization(ctx, userId, app.applicationId);
    const body = { template_id: templateId, recipient_user_id: userId, external_issue_id: `iss-${randomUUID()}` };
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 30 }, () => issueRequest(ctx, app, body, key)));
    const originals = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const r of responses) {
      if (r.status === 201) expect(r.text).toBe(originals[0].text);
      else expectError(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
    }
    const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM vouchers WHERE template_id = $1`, [
      templateId,
    ]);
    expect(count).toBe(1);
    const [template] = await db().query(`SELECT issued_count FROM templates WHERE id = $1`, [templateId]);
    expect(template.issued_count).toBe(1);
  });

  it('stores a refusal and replays it byte for byte with the same key', async () => {
    const body = { template_id: randomUUID(), recipient_user_id: 'nobody', external_issue_id: `iss-${randomUUID()}` };
    const refusedKey = randomUUID();
    const first = await issueRequest(ctx, app, body, refusedKey);
    expectError(first, 404, 'NOT_FOUND');
    const again = await issueRequest(ctx, app, body, refusedKey);
    expect(again.status).toBe(404);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('issue_limit 1 under 10 parallel issues: one voucher; every refusal, whether found early or at commit, is stored', async () => {
    const templateId = await activeTemplate(ctx, app, { issue_limit: 1 });
    const attempts = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const userId = `user-${randomUUID()}`;
        await seedAuthorization(ctx, userId, app.applicationId);
        const body = { template_id: templateId, recipient_user_id: userId, external_issue_id: `iss-${randomUUID()}` };
        const key = randomUUID();
        return { body, key, res: await issueRequest(ctx, app, body, key) };
      }),
    );
    expect(attempts.filter((a) => a.res.status === 201)).toHaveLength(1);
    for (const refused of attempts.filter((a) => a.res.status !== 201)) {
      expectError(refused.res, 409, 'ISSUE_LIMIT_REACHED');
      const replay = await issueRequest(ctx, app, refused.body, refused.key);
      expect(replay.text).toBe(refused.res.text);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    const [template] = await db().query(`SELECT issued_count FROM templates WHERE id = $1`, [templateId]);
    expect(template.issued_count).toBe(1);
  });
});
