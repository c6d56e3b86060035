import request from 'supertest';
import { BotTestContext, startBotApp } from './app-context';

/** verifyToken is limited per client address (verify_token), here to two calls a minute. */
const verifyFrom = (ctx: BotTestContext, forwardedFor: string) =>
  request(ctx.app.getHttpServer())
    .post('/api/v1/bots/verifyToken')
    .set('X-Forwarded-For', forwardedFor)
    .send({ token: 'sbot_short' });

describe.each([
  ['0 (no proxy)', '0'],
  ['1 (one ingress)', '1'],
])('per-address limits with TRUST_PROXY_HOPS=%s', (_label, hops) => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp({ TRUST_PROXY_HOPS: hops, RATE_LIMITS: 'verify_token=2' });
  });
  afterAll(() => ctx.close());

  if (hops === '0') {
    it('counts by the connection and ignores X-Forwarded-For, which a client could write itself (defect 6)', async () => {
      await verifyFrom(ctx, '203.0.113.1').expect(200);
      await verifyFrom(ctx, '203.0.113.2').expect(200);
      const third = await verifyFrom(ctx, '203.0.113.3');
      expect({ status: third.status, code: third.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    });
  } else {
    it('counts each client behind the ingress apart, by the address the ingress appended (defect 6: one bucket for everybody)', async () => {
      for (const client of ['203.0.113.1', '203.0.113.2']) {
        // The ingress appends the address it saw; what a client wrote in front of it is not trusted.
        await verifyFrom(ctx, `10.9.9.9, ${client}`).expect(200);
        await verifyFrom(ctx, `10.8.8.8, ${client}`).expect(200);
      }
      const third = await verifyFrom(ctx, '203.0.113.1');
      expect({ status: third.status, code: third.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
      await verifyFrom(ctx, '203.0.113.3').expect(200);
    });
  }
});
