import { describeEachBackend } from '@app/testing';
import request from 'supertest';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  pollsWaiting,
  STAFF_ID,
  startBotApp,
} from './app-context';

/** The recheck interval stays at its 5 s default, so only the change itself can end a poll sooner. */
describeEachBackend('a waiting getUpdates ends as soon as its token or bot no longer allows it', (backend) => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp({ COORDINATION_BACKEND: backend, WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(() => ctx.close());

  /** Starts a 20 s poll, makes the change once it waits, and answers the poll's status and duration. */
  async function pollThrough(bot: ApprovedBot, change: () => Promise<unknown>) {
    const started = Date.now();
    const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 20 }).then((res) => res);
    await pollsWaiting(ctx.app);
    await change();
    const res = await poll;
    return { res, elapsedMs: Date.now() - started };
  }

  const developer = async (id: string) => `Bearer ${await ctx.jwt(id)}`;

  it('defect 7: token rotation ends a waiting getUpdates at once with 401', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1');
    const { res, elapsedMs } = await pollThrough(bot, async () =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/my/${bot.botId}/token/rotate`)
        .set('Authorization', await developer('dev-1'))
        .expect(200),
    );
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_BOT_TOKEN' });
    expect(elapsedMs).toBeLessThan(3000);
  });

  it('defect 7: token revocation ends a waiting getUpdates at once with 401', async () => {
    const bot = await createApprovedBot(ctx, 'dev-2');
    const { res, elapsedMs } = await pollThrough(bot, async () =>
      request(ctx.app.getHttpServer())
        .delete(`/api/v1/bots/my/${bot.botId}/token`)
        .set('Authorization', await developer('dev-2'))
        .expect(200),
    );
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('INVALID_BOT_TOKEN');
    expect(elapsedMs).toBeLessThan(3000);
  });

  it('defect 7: disabling the bot ends a waiting getUpdates at once with 403 BOT_NOT_AVAILABLE', async () => {
    const bot = await createApprovedBot(ctx, 'dev-3');
    const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
    const { res, elapsedMs } = await pollThrough(bot, () =>
      request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/admin/bots/${bot.botId}`)
        .set('Authorization', staff)
        .send({ status: 'disabled' })
        .expect(200),
    );
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('BOT_NOT_AVAILABLE');
    expect(elapsedMs).toBeLessThan(3000);
  });

  it('defect 7: setWebhook ends a waiting getUpdates at once with 409 CONFLICT', async () => {
    const bot = await createApprovedBot(ctx, 'dev-4');
    const { res, elapsedMs } = await pollThrough(bot, () =>
      callBot(ctx, bot.token, 'setWebhook', {
        url: 'https://127.0.0.1:9/hook',
        secret_token: 'secret-token-123',
      }).expect(200),
    );
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('webhook') });
    expect(elapsedMs).toBeLessThan(3000);
  });

  it('a change that still allows polling (a new description) leaves the poll waiting until its timeout', async () => {
    const bot = await createApprovedBot(ctx, 'dev-5');
    const started = Date.now();
    const poll = callBot(ctx, bot.token, 'getUpdates', { timeout: 2 }).then((res) => res);
    await pollsWaiting(ctx.app);
    await callBot(ctx, bot.token, 'setMyDescription', { description: 'Still here' }).expect(200);
    const res = await poll;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });
});
