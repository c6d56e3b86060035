import request from 'supertest';
import { checkoutRelease, createTestApp, expectReleaseReported, readinessInfo } from '@app/testing';
import { AppModule } from '../src/app.module';
import { BotTestContext, startBotApp } from './app-context';

describe('bot-api foundation', () => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp();
  });
  afterAll(() => ctx.close());

  it('answers readiness 200 naming the coordination mode, with what that mode depends on up', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/health/ready').expect(200);
    expect(res.body.info).toEqual(readinessInfo(ctx.config.coordinationBackend));
  });

  it('reports the release it runs, version and commit, on liveness and in app_build_info', async () => {
    await expectReleaseReported(ctx.app.getHttpServer(), checkoutRelease('bot-api'));
  });

  it('renders an unknown route in the bot envelope with an X-Service-Request-Id UUID', async () => {
    // No API document has an unknown route, so it is asked of a second instance whose responses are not
    // checked against the document.
    const unchecked = await createTestApp(AppModule.forRoot(ctx.config));
    try {
      const res = await request(unchecked.getHttpServer()).post('/api/v1/bots/noSuchMethod').expect(404);
      expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await unchecked.close();
    }
  });

  it('answers malformed JSON with 400 VALIDATION in the bot envelope', async () => {
    const res = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/sendMessage')
      .set('Content-Type', 'application/json')
      .send('{"chat_id": ')
      .expect(400);
    expect(res.body).toEqual({ success: false, code: 'VALIDATION', message: 'Malformed JSON body' });
  });
});
