import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Api, InputFile, InputMediaBuilder } from 'grammy';
import { ApprovedBot, BotTestContext, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import { callUrl, diskStorage, pngOf, s3Storage, StorageUnderTest } from './file-uploads';
import { listenForFrameworks } from './telegram-support';

describe.each([
  ['disk', diskStorage],
  ['s3', s3Storage],
])('Telegram face: InputFile uploads, file_id sends, getFile and the file route (%s driver)', (_name, storageFor) => {
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let api: Api;
  let apiRoot: string;
  let alice: string;
  let chatUuid: string;
  let chatId: number;
  let directory: string;
  const png = pngOf(7, 5, 3);

  beforeAll(async () => {
    storage = await storageFor();
    ctx = await startBotApp(storage.env);
    apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'media_tg_bot' });
    other = await createApprovedBot(ctx, 'dev-2', { username: 'other_media_bot' });
    api = new Api(bot.token, { apiRoot });
    alice = await ctx.jwt('alice', 'Alice');
    chatUuid = await openPrivateChat(ctx, alice, bot.botId);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatUuid}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'send me pictures' })
      .expect(201);
    const [update] = await api.getUpdates();
    chatId = update.message!.chat.id;
    directory = mkdtempSync(join(tmpdir(), 'tg-media-'));
  });
  afterAll(async () => {
    await ctx.close();
    await storage.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  async function clientMessages() {
    const page = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${chatUuid}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .expect(200);
    return page.body.data.items as Array<{ message_id: number; file?: { url: string; width: number } }>;
  }

  it('sends a photo from a local file by multipart; the client downloads the same bytes', async () => {
    const path = join(directory, 'picture.png');
    writeFileSync(path, png);
    const sent = await api.sendPhoto(chatId, new InputFile(path), { caption: 'a picture' });
    expect(sent.photo).toEqual([expect.objectContaining({ width: 7, height: 5, file_size: png.length })]);
    expect(sent.caption).toBe('a picture');
    const seen = (await clientMessages()).find((m) => m.message_id === sent.message_id);
    const download = await callUrl(ctx, 'GET', seen!.file!.url);
    expect(download.status).toBe(200);
    expect(download.body.equals(png)).toBe(true);
  });

  it('gives a file_path with getFile that the file route serves to this bot only', async () => {
    const sent = await api.sendDocument(chatId, new InputFile(png, 'report.png'));
    const file = await api.getFile(sent.document!.file_id);
    expect(file).toMatchObject({
      file_id: sent.document!.file_id,
      file_size: png.length,
      file_path: expect.any(String),
    });
    const res = await fetch(`${apiRoot}/file/bot${bot.token}/${file.file_path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    const foreign = await fetch(`${apiRoot}/file/bot${other.token}/${file.file_path}`);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
  });

  it('sends again by file_id without a new upload', async () => {
    const first = await api.sendPhoto(chatId, new InputFile(png, 'again.png'));
    const second = await api.sendPhoto(chatId, first.photo![0].file_id);
    expect(second.photo![0].file_id).toBe(first.photo![0].file_id);
  });

  it('sends a media group whose items are attach:// parts', async () => {
    const sent = await api.sendMediaGroup(chatId, [
      InputMediaBuilder.photo(new InputFile(pngOf(3, 2, 1), 'one.png'), { caption: 'one' }),
      InputMediaBuilder.photo(new InputFile(pngOf(4, 2, 2), 'two.png')),
    ]);
    const items = sent as unknown as Array<{ media_group_id?: string; photo?: Array<{ width: number }> }>;
    expect(items).toHaveLength(2);
    expect(items[0].media_group_id).toBeDefined();
    expect(items[1].media_group_id).toBe(items[0].media_group_id);
    expect(items.map((item) => item.photo![0].width)).toEqual([3, 4]);
  });

  it('refuses a part of a type outside the upload allow-list with Bad Request', async () => {
    const res = await request(ctx.app.getHttpServer())
      .post(`/telegram/bot${bot.token}/sendDocument`)
      .field('chat_id', String(chatId))
      .attach('document', Buffer.from('#!/bin/sh'), { filename: 'run.sh', contentType: 'application/x-sh' })
      .expect(400);
    expect(res.body.description).toMatch(/^Bad Request: validation failed: fileType/);
  });
});
