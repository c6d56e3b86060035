import type { INestApplication } from '@nestjs/common';
import { createTestApp, describeEachBackend, eventually } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { BotTestContext, callBot, createApprovedBot, STAFF_ID, startBotApp } from './app-context';

/** Bot tokens are looked up once and reused for BOT_TOKEN_CACHE_MS; every change must still apply at once. */
describeEachBackend('bot token look-up cache', (backend) => {
  let ctx: BotTestContext;
  let other: INestApplication;

  beforeAll(async () => {
    // A long cache life, so only invalidation (never expiry) can explain a refused token below.
    ctx = await startBotApp({
      COORDINATION_BACKEND: backend,
      BOT_TOKEN_CACHE_MS: '600000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    other = await createTestApp(AppModule.forRoot(ctx.config));
  });
  afterAll(async () => {
    await other.close();
    await ctx.close();
  });

  const getMe = (server: ReturnType<INestApplication['getHttpServer']>, token: string) =>
    request(server).get('/api/v1/bots/me').set('Authorization', `Bearer ${token}`);

  it('serves a repeated call without reading the bots table again', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1');
    await getMe(ctx.app.getHttpServer(), bot.token).expect(200);
    // A change behind the service's back (no invalidation) is not seen while the entry lives...
    await ctx.app.get(DataSource).query(`UPDATE bots SET name = 'Renamed in SQL' WHERE id = $1`, [bot.botId]);
    const cached = await getMe(ctx.app.getHttpServer(), bot.token).expect(200);
    expect(cached.body.data.name).not.toBe('Renamed in SQL');
    // ...while an instance that has not cached the token reads the row.
    const fresh = await getMe(other.getHttpServer(), bot.token).expect(200);
    expect(fresh.body.data.name).toBe('Renamed in SQL');
  });

  it('refuses a rotated token on the very next call, on this instance and on another', async () => {
    const bot = await createApprovedBot(ctx, 'dev-2');
    await getMe(ctx.app.getHttpServer(), bot.token).expect(200);
    await getMe(other.getHttpServer(), bot.token).expect(200);
    const rotated = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/my/${bot.botId}/token/rotate`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-2')}`)
      .expect(200);
    expect((await getMe(ctx.app.getHttpServer(), bot.token)).status).toBe(401);
    await eventually(async () => expect((await getMe(other.getHttpServer(), bot.token)).status).toBe(401), 2000);
    await getMe(ctx.app.getHttpServer(), rotated.body.data.one_time_token).expect(200);
    await getMe(other.getHttpServer(), rotated.body.data.one_time_token).expect(200);
  });

  it('refuses a revoked token and a disabled bot at once, on this instance and on another', async () => {
    const revoked = await createApprovedBot(ctx, 'dev-3');
    const disabled = await createApprovedBot(ctx, 'dev-3');
    for (const bot of [revoked, disabled]) {
      await getMe(ctx.app.getHttpServer(), bot.token).expect(200);
      await getMe(other.getHttpServer(), bot.token).expect(200);
    }
    const dev = `Bearer ${await ctx.jwt('dev-3')}`;
    const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
    await request(ctx.app.getHttpServer())
      .delete(`/api/v1/bots/my/${revoked.botId}/token`)
      .set('Authorization', dev)
      .expect(200);
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/admin/bots/${disabled.botId}`)
      .set('Authorization', staff)
      .send({ status: 'disabled' })
      .expect(200);
    expect((await getMe(ctx.app.getHttpServer(), revoked.token)).status).toBe(401);
    const refused = await getMe(ctx.app.getHttpServer(), disabled.token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('BOT_NOT_AVAILABLE');
    await eventually(async () => expect((await getMe(other.getHttpServer(), revoked.token)).status).toBe(401), 2000);
    await eventually(async () => expect((await getMe(other.getHttpServer(), disabled.token)).status).toBe(403), 2000);
  });

  it('answers getUpdates with 409 right after the bot switched to webhook mode', async () => {
    const bot = await createApprovedBot(ctx, 'dev-4');
    await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    await callBot(ctx, bot.token, 'setWebhook', {
      url: 'https://127.0.0.1:9/hook',
      secret_token: 'secret-token-123',
    }).expect(200);
    await callBot(ctx, bot.token, 'getUpdates', {}).expect(409);
    await callBot(ctx, bot.token, 'deleteWebhook', {}).expect(200);
    await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
  });

  it('reads the database on every call when the cache is turned off', async () => {
    const config = Object.assign(new BotConfig(), ctx.config, { BOT_TOKEN_CACHE_MS: 0 });
    const uncached = await createTestApp(AppModule.forRoot(config));
    try {
      const bot = await createApprovedBot(ctx, 'dev-5');
      await getMe(uncached.getHttpServer(), bot.token).expect(200);
      await ctx.app.get(DataSource).query(`UPDATE bots SET token_revoked_at = now() WHERE id = $1`, [bot.botId]);
      expect((await getMe(uncached.getHttpServer(), bot.token)).status).toBe(401);
    } finally {
      await uncached.close();
    }
  });
});
