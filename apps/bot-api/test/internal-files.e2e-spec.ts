import request from 'supertest';
import { BotTestContext, createApprovedBot, ensureUsers, insertFile, startBotApp, submitBot } from './app-context';

const SERVICE_TOKEN = 'internal-files-test-token-0123456789';

describe('internal file route for platform services (defect 9: cover_file_id ownership)', () => {
  let ctx: BotTestContext;
  const route = (fileId: string, owner?: string) =>
    request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/internal/files/${fileId}`)
      .query(owner === undefined ? {} : { owner });
  const asService = (fileId: string, owner?: string) =>
    route(fileId, owner).set('Authorization', `Bearer ${SERVICE_TOKEN}`);

  let ownUpload: string;
  let ownBotUpload: string;
  let ownPdf: string;
  let otherUpload: string;
  let otherBotUpload: string;

  beforeAll(async () => {
    ctx = await startBotApp({ INTERNAL_API_TOKEN: SERVICE_TOKEN });
    await ensureUsers(ctx, 'owner-a', 'owner-b');
    const botOfA = await submitBot(ctx, 'owner-a');
    const botOfB = await submitBot(ctx, 'owner-b');
    ownUpload = await insertFile(ctx, { userId: 'owner-a', mimeType: 'image/png', width: 640, height: 360 });
    ownBotUpload = await insertFile(ctx, { botId: botOfA, mimeType: 'image/jpeg', width: 100, height: 100 });
    ownPdf = await insertFile(ctx, { userId: 'owner-a', mimeType: 'application/pdf', fileName: 'terms.pdf' });
    otherUpload = await insertFile(ctx, { userId: 'owner-b', mimeType: 'image/png' });
    otherBotUpload = await insertFile(ctx, { botId: botOfB, mimeType: 'image/webp' });
  });
  afterAll(() => ctx.close());

  it('answers file_id, mime_type and size of an image the account uploaded itself', async () => {
    const res = await asService(ownUpload, 'owner-a');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ file_id: ownUpload, mime_type: 'image/png', width: 640, height: 360 });
  });

  it('counts an image uploaded by a bot the account develops as the account’s own', async () => {
    const res = await asService(ownBotUpload, 'owner-a');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ file_id: ownBotUpload, mime_type: 'image/jpeg', width: 100, height: 100 });
  });

  it('answers the same 404 for another account’s image, its bot’s image, a non-image, an unknown and a malformed id', async () => {
    const misses = await Promise.all([
      asService(otherUpload, 'owner-a'),
      asService(otherBotUpload, 'owner-a'),
      asService(ownPdf, 'owner-a'),
      asService('3b241101-e2bb-4255-8caf-4136c566a962', 'owner-a'),
      asService('https%3A%2F%2Fexample.com%2Fcover.png', 'owner-a'),
      asService(ownUpload, 'owner-b'),
      asService(ownBotUpload, 'owner-b'),
    ]);
    for (const res of misses) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: 'File not found' });
    }
  });

  it('refuses a call without the internal service token, with a wrong one, and with user or bot credentials', async () => {
    const bot = await createApprovedBot(ctx, 'owner-a');
    const attempts = [
      route(ownUpload, 'owner-a'),
      route(ownUpload, 'owner-a').set('Authorization', `Bearer ${SERVICE_TOKEN}x`),
      route(ownUpload, 'owner-a').set('Authorization', `Bearer ${SERVICE_TOKEN.slice(0, -1)}`),
      route(ownUpload, 'owner-a').set('Authorization', SERVICE_TOKEN),
      route(ownUpload, 'owner-a').set('Authorization', `Bearer ${await ctx.jwt('owner-a')}`),
      route(ownUpload, 'owner-a').set('Authorization', `Bearer ${bot.token}`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(JSON.stringify(res.body)).not.toContain(SERVICE_TOKEN);
    }
  });

  it('requires the owner account in the query', async () => {
    const res = await asService(ownUpload);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION');
  });
});
