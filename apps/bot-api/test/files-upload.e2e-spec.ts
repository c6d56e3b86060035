import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import {
  callUrl,
  completeUpload,
  diskStorage,
  pngOf,
  requestCredentials,
  s3Storage,
  StorageUnderTest,
  uploadFile,
} from './file-uploads';

describe.each([
  ['disk', diskStorage],
  ['s3', s3Storage],
])('files with the %s driver (spec 4.2 Upload, 2.3)', (driver, makeStorage) => {
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    storage = await makeStorage();
    ctx = await startBotApp(storage.env);
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'photo_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { username: 'other_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    chatId = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(async () => {
    await ctx?.close();
    await storage?.stop();
  });

  it('uploads a PNG in three steps, sends it with sendPhoto, and the user and getFile download the same bytes', async () => {
    const png = pngOf(7, 5, 1);
    const { key, file } = await uploadFile(ctx, { bot: bot.token }, png, 'dots.png', 'image/png');
    expect(key.startsWith(`bots/${bot.botId}/`)).toBe(true);
    expect(file).toEqual({
      file_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      file_name: 'dots.png',
      mime_type: 'image/png',
      file_size: png.length,
      width: 7,
      height: 5,
      duration: null,
      url: expect.any(String),
      url_expires_at: expect.any(Number),
    });

    const sent = await callBot(ctx, bot.token, 'sendPhoto', { chat_id: chatId, file_id: file.file_id }).expect(201);
    expect(sent.body.data.file).toMatchObject({ file_id: file.file_id, width: 7, height: 5, url: expect.any(String) });

    // The user's side: the message as the client route lists it, with a working temporary URL.
    const listed = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    const received = listed.body.data.items.find((m: any) => m.message_id === sent.body.data.message_id);
    expect(received.file).toMatchObject({
      file_id: file.file_id,
      file_name: 'dots.png',
      mime_type: 'image/png',
      file_size: png.length,
      width: 7,
      height: 5,
      url: expect.any(String),
      thumbnail_url: null,
    });
    const viaMessage = await callUrl(ctx, 'GET', received.file.url);
    expect(viaMessage.status).toBe(200);
    expect(viaMessage.headers['content-type']).toBe('image/png');
    expect(viaMessage.body.equals(png)).toBe(true);

    const info = await callBot(ctx, bot.token, 'getFile', { file_id: file.file_id }).expect(200);
    expect(info.body.data).toMatchObject({ file_id: file.file_id, width: 7, height: 5, file_size: png.length });
    const viaGetFile = await callUrl(ctx, 'GET', info.body.data.url);
    expect(viaGetFile.status).toBe(200);
    expect(viaGetFile.body.equals(png)).toBe(true);

    const byQuery = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/getFile?file_id=${file.file_id}`)
      .set('Authorization', `Bearer ${bot.token}`)
      .expect(200);
    expect((await callUrl(ctx, 'GET', byQuery.body.data.url)).body.equals(png)).toBe(true);
  });

  it("answers 404 for another bot's file_id on getFile and on sendPhoto", async () => {
    const { file } = await uploadFile(ctx, { bot: bot.token }, pngOf(2, 2, 9), 'mine.png', 'image/png');
    const refused = await callBot(ctx, other.token, 'getFile', { file_id: file.file_id }).expect(404);
    expect(refused.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
    const otherChat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: other.botId })
      .expect(201);
    const send = await callBot(ctx, other.token, 'sendPhoto', {
      chat_id: otherChat.body.data.id,
      file_id: file.file_id,
    });
    expect(send.status).toBe(404);
    expect(send.body.code).toBe('NOT_FOUND');
  });

  it("lets a user upload through the client routes; the bot's Update carries a working file.url and the bot may getFile it", async () => {
    const png = pngOf(3, 4, 5);
    const { file } = await uploadFile(ctx, { user: alice }, png, 'me.png', 'image/png');
    expect(file).toMatchObject({ width: 3, height: 4 });
    // Only the uploader can post it before it was shared.
    expect((await callBot(ctx, bot.token, 'getFile', { file_id: file.file_id })).status).toBe(404);

    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ file_id: file.file_id, text: 'look' })
      .expect(201);
    const polled = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    const update = polled.body.data.find((u: any) => u.message?.file?.file_id === file.file_id);
    expect(update).toMatchObject({
      type: 'photo',
      message: { file: { file_name: 'me.png', mime_type: 'image/png', width: 3, height: 4, url: expect.any(String) } },
    });
    const viaUpdate = await callUrl(ctx, 'GET', update.message.file.url);
    expect(viaUpdate.status).toBe(200);
    expect(viaUpdate.body.equals(png)).toBe(true);

    const seen = await callBot(ctx, bot.token, 'getFile', { file_id: file.file_id }).expect(200);
    expect((await callUrl(ctx, 'GET', seen.body.data.url)).body.equals(png)).toBe(true);
    // A bot that did not receive it still cannot use it.
    expect((await callBot(ctx, other.token, 'getFile', { file_id: file.file_id })).status).toBe(404);
  });

  it('refuses a second complete with 409, and bytes of the wrong size at complete, deleting them', async () => {
    const png = pngOf(4, 4, 2);
    const { key } = await uploadFile(ctx, { bot: bot.token }, png, 'once.png', 'image/png');
    const again = await completeUpload(
      ctx,
      { bot: bot.token },
      {
        key,
        fileName: 'once.png',
        fileSize: png.length,
        fileType: 'image/png',
      },
    ).expect(409);
    expect(again.body.code).toBe('CONFLICT');

    const declared = { fileName: 'short.png', fileSize: png.length, fileType: 'image/png' };
    const credentials = await requestCredentials(ctx, { bot: bot.token }, declared).expect(201);
    const { uploadUrl, key: shortKey, headers } = credentials.body.data;
    const short = png.subarray(0, png.length - 1);
    const put = await callUrl(ctx, 'PUT', uploadUrl, { ...headers, 'Content-Length': String(short.length) }, short);
    // The disk driver refuses the PUT itself; the S3 store is trusted with the signed Content-Length, and
    // complete checks what it holds either way.
    if (driver === 'disk') expect(put.status).toBe(400);
    const completed = await completeUpload(ctx, { bot: bot.token }, { key: shortKey, ...declared });
    expect(completed.status).toBe(driver === 'disk' ? 409 : 400);
    expect(completed.body.code).toBe(driver === 'disk' ? 'UPLOAD_NOT_RECEIVED' : 'UPLOAD_SIZE_MISMATCH');
    const rows = await ctx.app.get(DataSource).query(`SELECT 1 FROM files WHERE storage_key = $1`, [shortKey]);
    expect(rows).toHaveLength(0);
  });
});
