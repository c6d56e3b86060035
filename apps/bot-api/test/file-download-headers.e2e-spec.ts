import request from 'supertest';
import { BotTestContext, createApprovedBot, startBotApp } from './app-context';
import { callUrl, diskStorage, pngOf, StorageUnderTest, uploadFile } from './file-uploads';

describe('downloads of user bytes from the origin the staff console shares', () => {
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let token: string;

  beforeAll(async () => {
    storage = await diskStorage();
    ctx = await startBotApp(storage.env);
    token = (await createApprovedBot(ctx, 'dev-1', { username: 'download_bot' })).token;
  });
  afterAll(async () => {
    await ctx.close();
    await storage.stop();
  });

  it('serves a document as a sandboxed, never sniffed attachment on the signed route and the Telegram file route (defect 8)', async () => {
    const { file } = await uploadFile(
      ctx,
      { bot: token },
      Buffer.from('<script>alert(1)</script>'),
      'a.txt',
      'text/plain',
    );
    const signed = await callUrl(ctx, 'GET', file.url);
    expect(signed.status).toBe(200);
    expect(signed.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment',
      'content-security-policy': 'sandbox',
    });
    const info = await request(ctx.app.getHttpServer()).get(`/telegram/bot${token}/getFile?file_id=${file.file_id}`);
    const viaTelegram = await request(ctx.app.getHttpServer())
      .get(`/telegram/file/bot${token}/${info.body.result.file_path}`)
      .expect(200);
    expect(viaTelegram.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment',
      'content-security-policy': 'sandbox',
    });
  });

  it('shows an image inline, still sandboxed and never sniffed (defect 8)', async () => {
    const { file } = await uploadFile(ctx, { bot: token }, pngOf(3, 3), 'p.png', 'image/png');
    const signed = await callUrl(ctx, 'GET', file.url);
    expect(signed.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' });
    expect(signed.headers['content-disposition']).toBeUndefined();
  });
});
