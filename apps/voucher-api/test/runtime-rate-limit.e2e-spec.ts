import { describeEachBackend } from '@app/testing';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { seedApplication, seedToken, startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, expectError } from './runtime-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

describeEachBackend('runtime rate limits at the default per-minute limits', (backend) => {
  let ctx: VoucherTestContext;
  const server = () => ctx.app.getHttpServer();

  beforeAll(async () => {
    ctx = await startVoucherApp({ COORDINATION_BACKEND: backend });
  });
  afterAll(() => ctx.close());

  it('GET /me allows 60 calls a minute per token with X-RateLimit headers, then answers 429 RATE_LIMITED with Retry-After', async () => {
    const app = await seedApplication(ctx);
    const start = Math.floor(Date.now() / 1000);
    const resets = new Set<number>();
    for (let i = 1; i <= 60; i++) {
      const res = await request(server()).get(`${API}/me`).set(bearer(app.token)).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(start + 59);
      resets.add(reset);
    }
    // One fixed window: every answer names the same end (give or take the rounding of a second).
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);
    expect(Math.min(...resets)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    const limited = await request(server()).get(`${API}/me`).set(bearer(app.token));
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers['x-ratelimit-limit']).toBe('60');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // Counted per endpoint: the token's other endpoints keep their own budget.
    const list = await request(server()).get(`${API}/vouchers/templates`).set(bearer(app.token)).expect(200);
    expect(list.headers['x-ratelimit-remaining']).toBe('59');
    // Counted per token: another token of the same application is not limited.
    const second = await seedToken(ctx, app.applicationId);
    await request(server()).get(`${API}/me`).set(bearer(second.token)).expect(200);
  });

  it('reverse allows 10 calls a minute; the 429 comes before idempotency and is never stored', async () => {
    const app = await seedApplication(ctx, { ownerId: 'owner-2' });
    const reverse = (key: string) =>
      request(server())
        .post(`${API}/vouchers/redemptions/${randomUUID()}/reverse`)
        .set(bearer(app.token))
        .set('Idempotency-Key', key)
        .send({});
    for (let i = 0; i < 10; i++) {
      const res = await reverse(randomUUID());
      expectError(res, 404, 'NOT_FOUND');
      expect(res.headers['x-ratelimit-limit']).toBe('10');
    }
    const key = randomUUID();
    const limited = await reverse(key);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
    const [{ count }] = await ctx.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS count FROM idempotency_keys WHERE key = $1`, [key]);
    expect(count).toBe(0);
  });

  it.each([
    ['POST', '/vouchers/templates', 20],
    ['POST', '/vouchers/templates/00000000-0000-4000-8000-000000000000/submit', 10],
    ['POST', '/vouchers/issue', 30],
    ['POST', '/vouchers/verify', 30],
    ['POST', '/vouchers/redeem', 20],
    ['GET', '/vouchers/redemptions/00000000-0000-4000-8000-000000000000', 60],
    ['GET', '/vouchers/templates', 60],
  ])('%s %s announces its default limit of %i per minute', async (method, path, limit) => {
    const app = await seedApplication(ctx, { ownerId: `owner-${randomUUID()}` });
    const call = method === 'GET' ? request(server()).get(`${API}${path}`) : request(server()).post(`${API}${path}`);
    const res = await call
      .set(bearer(app.token))
      .set('Idempotency-Key', randomUUID())
      .send(method === 'GET' ? undefined : {});
    expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
    expect(res.headers['x-ratelimit-remaining']).toBe(String(limit - 1));
  });
});
