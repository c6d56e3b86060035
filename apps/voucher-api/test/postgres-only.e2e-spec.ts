import { readinessInfo } from '@app/testing';
import request from 'supertest';
import { seedApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, expectError } from './runtime-fixtures';

/** The PostgreSQL-only mode needs no Redis at all: here REDIS_URL points at a port where nothing listens. */
describe('voucher-api in the PostgreSQL-only mode with no Redis reachable', () => {
  let ctx: VoucherTestContext;

  beforeAll(async () => {
    ctx = await startVoucherApp({
      COORDINATION_BACKEND: 'postgres',
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMITS: 'me=2',
    });
  });
  afterAll(() => ctx.close());

  it('boots and reports ready, naming the mode and checking no Redis', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.info).toEqual(readinessInfo('postgres'));
  });

  it('counts rate limits in PostgreSQL without Redis', async () => {
    const app = await seedApplication(ctx);
    const me = () => request(ctx.app.getHttpServer()).get(`${API}/me`).set(bearer(app.token));
    await me().expect(200);
    const second = await me().expect(200);
    expect(second.headers['x-ratelimit-remaining']).toBe('0');
    expectError(await me(), 429, 'RATE_LIMITED');
  });
});
