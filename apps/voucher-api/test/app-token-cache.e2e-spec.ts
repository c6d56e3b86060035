import type { INestApplication } from '@nestjs/common';
import { createTestApp, describeEachBackend, eventually, waitUntil } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { seedApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { API, bearer, expectError, GENEROUS_RATE_LIMITS } from './runtime-fixtures';

type Server = ReturnType<INestApplication['getHttpServer']>;

/** Application tokens are looked up once and reused for APP_TOKEN_CACHE_MS; every change must still apply at once. */
describeEachBackend('application token look-up cache', (backend) => {
  let ctx: VoucherTestContext;
  let other: INestApplication;
  const here = (): Server => ctx.app.getHttpServer();
  const there = (): Server => other.getHttpServer();
  const me = (server: Server, token: string) => request(server).get(`${API}/me`).set(bearer(token));

  beforeAll(async () => {
    // A long cache life, so only invalidation (never expiry) can explain a refused token below.
    ctx = await startVoucherApp({
      COORDINATION_BACKEND: backend,
      ...GENEROUS_RATE_LIMITS,
      APP_TOKEN_CACHE_MS: '60000',
    });
    other = await createTestApp(AppModule.forRoot(ctx.config));
  });
  afterAll(async () => {
    await other.close();
    await ctx.close();
  });

  it('serves a repeated call without reading the token again', async () => {
    const app = await seedApplication(ctx, { name: 'Before' });
    await me(here(), app.token).expect(200);
    // A change behind the service's back (no invalidation) is not seen while the entry lives...
    await ctx.app
      .get(DataSource)
      .query(`UPDATE applications SET name = 'Renamed in SQL' WHERE id = $1`, [app.applicationId]);
    expect((await me(here(), app.token).expect(200)).body.data.name).toBe('Before');
    // ...while an instance that has not cached the token reads the row.
    expect((await me(there(), app.token).expect(200)).body.data.name).toBe('Renamed in SQL');
  });

  it('refuses a revoked token on the very next call, on this instance and on another', async () => {
    const app = await seedApplication(ctx, { ownerId: 'owner-revoke' });
    await me(here(), app.token).expect(200);
    await me(there(), app.token).expect(200);
    await request(here())
      .delete(`${API}/applications/${app.applicationId}/tokens/${app.tokenId}`)
      .set(bearer(await ctx.jwt(app.ownerId)))
      .expect(200);
    expectError(await me(here(), app.token), 401, 'UNAUTHORIZED');
    await eventually(async () => expect((await me(there(), app.token)).status).toBe(401), 2000);
  });

  it('applies a disabled application, a closed feature and new origins to cached tokens at once', async () => {
    const disabled = await seedApplication(ctx, { ownerId: 'owner-state' });
    const closed = await seedApplication(ctx, { ownerId: 'owner-state' });
    const fenced = await seedApplication(ctx, { ownerId: 'owner-state' });
    for (const app of [disabled, closed, fenced]) {
      await me(here(), app.token).expect(200);
      await me(there(), app.token).expect(200);
    }
    const owner = bearer(await ctx.jwt('owner-state'));
    const staff = bearer(await ctx.jwt('staff-1', 'Staff', ['platform_admin']));
    await request(here())
      .patch(`${API}/applications/${disabled.applicationId}`)
      .set(owner)
      .send({ status: 'disabled' })
      .expect(200);
    await request(here())
      .patch(`${API}/admin/applications/${closed.applicationId}`)
      .set(staff)
      .send({ features: { vouchers: false } })
      .expect(200);
    await request(here())
      .patch(`${API}/applications/${fenced.applicationId}`)
      .set(owner)
      .send({ allowed_origins: ['shop.example'] })
      .expect(200);
    const templates = (server: Server, token: string) =>
      request(server).get(`${API}/vouchers/templates`).set(bearer(token)).set('Origin', 'https://evil.example');
    expectError(await me(here(), disabled.token), 403, 'APPLICATION_DISABLED');
    expectError(await me(here(), closed.token), 403, 'FEATURE_DISABLED');
    expectError(await templates(here(), fenced.token), 403, 'ORIGIN_NOT_ALLOWED');
    await eventually(async () => expect((await me(there(), disabled.token)).status).toBe(403), 2000);
    await eventually(async () => expect((await me(there(), closed.token)).status).toBe(403), 2000);
    await eventually(async () => expect((await templates(there(), fenced.token)).status).toBe(403), 2000);
  });

  it('refuses a cached token once its expiry passes', async () => {
    const app = await seedApplication(ctx);
    const expiresAt = new Date(Date.now() + 1500);
    await ctx.app
      .get(DataSource)
      .query(`UPDATE app_tokens SET expires_at = $2 WHERE id = $1`, [app.tokenId, expiresAt]);
    await me(here(), app.token).expect(200);
    // The first request after the expiry is refused: the cache keeps no token past its expires_at.
    await waitUntil(() => Date.now() > expiresAt.getTime(), 'the expiry passes');
    expectError(await me(here(), app.token), 401, 'UNAUTHORIZED');
  });

  it('reads the database on every call when the cache is turned off', async () => {
    const config = Object.assign(new VoucherConfig(), ctx.config, { APP_TOKEN_CACHE_MS: 0 });
    const uncached = await createTestApp(AppModule.forRoot(config));
    try {
      const app = await seedApplication(ctx);
      await me(uncached.getHttpServer(), app.token).expect(200);
      await ctx.app.get(DataSource).query(`UPDATE app_tokens SET revoked_at = now() WHERE id = $1`, [app.tokenId]);
      expectError(await me(uncached.getHttpServer(), app.token), 401, 'UNAUTHORIZED');
    } finally {
      await uncached.close();
    }
  });
});
