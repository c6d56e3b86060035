import request from 'supertest';
import { seedApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { API, expectError } from './runtime-fixtures';

describe('console recipient search', () => {
  let ctx: VoucherTestContext;

  beforeAll(async () => {
    ctx = await startVoucherApp({ RATE_LIMITS: 'recipients.search=3' });
  });
  afterAll(() => ctx.close());

  it('defect 9: is throttled per account with X-RateLimit headers, then 429 RATE_LIMITED with Retry-After', async () => {
    const [mine, other] = [await seedApplication(ctx), await seedApplication(ctx, { ownerId: 'owner-2' })];
    const search = async (ownerId: string, applicationId: string) =>
      request(ctx.app.getHttpServer())
        .get(`${API}/applications/${applicationId}/vouchers/recipients`)
        .query({ keyword: 'own' })
        .set('Authorization', `Bearer ${await ctx.jwt(ownerId)}`);
    for (let call = 1; call <= 3; call++) {
      const res = await search(mine.ownerId, mine.applicationId);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(3 - call));
    }
    const limited = await search(mine.ownerId, mine.applicationId);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another account keeps its own budget.
    expect((await search(other.ownerId, other.applicationId)).status).toBe(200);
  });
});
