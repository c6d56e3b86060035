import { freePort } from '@app/testing';
import { createServer, Server, Socket } from 'node:net';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { BotApiProcess, startBotApiProcess, TEST_INTERNAL_API_TOKEN } from './bot-api-process';
import { API, bearer, expectError, GENEROUS_RATE_LIMITS, templateBody } from './runtime-fixtures';

// bot-api boots from source and migrates its own database first.
jest.setTimeout(120_000);

const COVER_PROBLEM = { field: 'cover_file_id', problem: expect.stringContaining('application owner') };

describe('defect 9: cover_file_id ownership — a template cover is an image owned by the application owner', () => {
  let botApi: BotApiProcess;
  let ctx: VoucherTestContext;
  let shop: SeededApplication;
  let ownImage: string;
  let ownBotImage: string;
  let ownPdf: string;
  let othersImage: string;

  const templates = () => request(ctx.app.getHttpServer()).post(`${API}/vouchers/templates`).set(bearer(shop.token));
  const templateCount = async (c: VoucherTestContext) =>
    Number((await c.app.get(DataSource).query(`SELECT count(*) AS n FROM templates`))[0].n);

  beforeAll(async () => {
    botApi = await startBotApiProcess();
    ctx = await startVoucherApp({
      ...GENEROUS_RATE_LIMITS,
      BOT_API_URL: botApi.url,
      INTERNAL_API_TOKEN: TEST_INTERNAL_API_TOKEN,
    });
    shop = await seedApplication(ctx, { ownerId: 'shop-owner' });
    ownImage = await botApi.storeFile({ userId: 'shop-owner', mimeType: 'image/png' });
    ownBotImage = await botApi.storeFile({ botId: await botApi.createBot('shop-owner'), mimeType: 'image/jpeg' });
    ownPdf = await botApi.storeFile({ userId: 'shop-owner', mimeType: 'application/pdf' });
    othersImage = await botApi.storeFile({ userId: 'someone-else', mimeType: 'image/png' });
  });
  afterAll(async () => {
    await ctx?.close();
    await botApi?.stop();
  });

  it('accepts an image the owner uploaded, and one uploaded by a bot the owner develops', async () => {
    const created = await templates().send(templateBody({ cover_file_id: ownImage }));
    expect(created.status).toBe(201);
    expect(created.body.data.cover_file_id).toBe(ownImage);
    const byBot = await templates().send(templateBody({ cover_file_id: ownBotImage }));
    expect(byBot.status).toBe(201);
    expect(byBot.body.data.cover_file_id).toBe(ownBotImage);
  });

  it('refuses another account’s image, a PDF and an unknown file id with 400 naming cover_file_id, creating nothing', async () => {
    const before = await templateCount(ctx);
    for (const fileId of [othersImage, ownPdf, '3b241101-e2bb-4255-8caf-4136c566a962']) {
      const res = await templates().send(templateBody({ cover_file_id: fileId }));
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([COVER_PROBLEM]);
    }
    expect(await templateCount(ctx)).toBe(before);
  });

  it('still refuses an external image address before asking the file service', async () => {
    const res = await templates().send(templateBody({ cover_file_id: 'https://cdn.example.com/cover.png' }));
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(res.body.error.details)).toContain('cover_file_id');
  });

  it('checks the cover on edit too: another account’s image leaves the template unchanged, the owner’s is taken', async () => {
    const id = (await templates().send(templateBody()).expect(201)).body.data.id as string;
    const edit = (cover: string | null) =>
      request(ctx.app.getHttpServer())
        .patch(`${API}/vouchers/templates/${id}`)
        .set(bearer(shop.token))
        .send({ cover_file_id: cover });
    const refused = await edit(othersImage);
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.error.details).toEqual([COVER_PROBLEM]);
    const taken = await edit(ownImage);
    expect(taken.status).toBe(200);
    expect(taken.body.data.cover_file_id).toBe(ownImage);
    const cleared = await edit(null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.cover_file_id).toBeNull();
  });

  it('judges ownership by the application’s owner, not by whoever holds a token: another shop cannot use this owner’s image', async () => {
    const otherShop = await seedApplication(ctx, { ownerId: 'other-owner', name: 'Other shop' });
    const res = await request(ctx.app.getHttpServer())
      .post(`${API}/vouchers/templates`)
      .set(bearer(otherShop.token))
      .send(templateBody({ cover_file_id: ownImage }));
    expectError(res, 400, 'VALIDATION_FAILED');
  });

  describe('when bot-api cannot answer', () => {
    let stalled: Server;
    const held: Socket[] = [];

    beforeAll(async () => {
      // Accepts connections and never answers: a hung bot-api.
      stalled = createServer((socket) => void held.push(socket));
      await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => stalled.close(resolve));
    });

    async function expectUnavailable(env: Record<string, string>, maxMs: number): Promise<void> {
      const isolated = await startVoucherApp({ ...GENEROUS_RATE_LIMITS, ...env });
      try {
        const app = await seedApplication(isolated, { ownerId: 'shop-owner' });
        const started = Date.now();
        const res = await request(isolated.app.getHttpServer())
          .post(`${API}/vouchers/templates`)
          .set(bearer(app.token))
          .send(templateBody({ cover_file_id: ownImage }));
        const elapsed = Date.now() - started;
        expectError(res, 503, 'FILE_SERVICE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('5');
        expect(elapsed).toBeLessThan(maxMs);
        expect(await templateCount(isolated)).toBe(0);
      } finally {
        await isolated.close();
      }
    }

    it('answers 503 FILE_SERVICE_UNAVAILABLE at once when nothing listens on the port, creating nothing', async () => {
      await expectUnavailable({ BOT_API_URL: `http://127.0.0.1:${await freePort()}` }, 1500);
    });

    it('answers 503 after BOT_API_TIMEOUT_MS when bot-api accepts the connection but never answers', async () => {
      const port = (stalled.address() as { port: number }).port;
      await expectUnavailable({ BOT_API_URL: `http://127.0.0.1:${port}`, BOT_API_TIMEOUT_MS: '300' }, 2000);
    });

    it('answers 503, not 400, when bot-api refuses voucher-api’s service token (the two were given different secrets)', async () => {
      await expectUnavailable({ BOT_API_URL: botApi.url, INTERNAL_API_TOKEN: 'not-the-shared-internal-token' }, 2000);
    });
  });
});
