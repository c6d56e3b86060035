import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { eventually, waitUntil } from '@app/testing';
import { DataSource } from 'typeorm';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';
import { callUrl, completeUpload, pngOf, requestCredentials, uploadFile } from './file-uploads';

const PNG = pngOf(6, 6, 3);
const DECLARED = { fileName: 'pic.png', fileSize: PNG.length, fileType: 'image/png' };

/** Every file under the storage directory except the (emptied) temporary area. */
function storedFiles(directory: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return existsSync(directory) ? walk(directory) : [];
}

/** The end of a signed URL's life as the URL itself states it (`expires`, unix seconds). */
function urlExpiresAt(url: string): number {
  const expires = Number(new URL(url).searchParams.get('expires'));
  expect(expires).toBeGreaterThan(0);
  return expires * 1000;
}

describe('upload URL refusals, ownership and purge (disk driver)', () => {
  let directory: string;
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let other: ApprovedBot;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'bot-files-'));
    ctx = await startBotApp({ FILE_STORAGE_DIR: directory });
    bot = await createApprovedBot(ctx, 'dev-1');
    other = await createApprovedBot(ctx, 'dev-2');
  });
  afterAll(async () => {
    await ctx?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function credentials(declared: object = DECLARED) {
    const res = await requestCredentials(ctx, { bot: bot.token }, declared).expect(201);
    return res.body.data as { uploadUrl: string; key: string; headers: Record<string, string>; expiresAt: number };
  }

  function keyFile(key: string) {
    return join(directory, key);
  }

  it('answers upload-credentials with a signed URL, the key under the bot, the headers and the expiry', async () => {
    const before = Math.floor(Date.now() / 1000);
    const target = await credentials();
    expect(target.key).toMatch(new RegExp(`^bots/${bot.botId}/[0-9a-f-]{36}$`));
    expect(target.headers).toEqual({ 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) });
    expect(target.uploadUrl.startsWith(`${ctx.config.FILE_PUBLIC_BASE_URL}/api/v1/bots/files/storage/`)).toBe(true);
    expect(target.expiresAt).toBeGreaterThanOrEqual(before + ctx.config.FILE_UPLOAD_TTL_SECONDS - 1);
    const rows = await ctx.app
      .get(DataSource)
      .query(`SELECT bot_id, file_name, file_size, mime_type FROM file_uploads WHERE storage_key = $1`, [target.key]);
    expect(rows).toEqual([
      { bot_id: bot.botId, file_name: 'pic.png', file_size: String(PNG.length), mime_type: 'image/png' },
    ]);
  });

  it('refuses declarations over 50 MB, of types off the allow-list, with paths in the name or unknown fields', async () => {
    const refuse = async (body: object) => {
      const res = await requestCredentials(ctx, { bot: bot.token }, body).expect(400);
      expect(res.body.code).toBe('VALIDATION');
    };
    await refuse({ ...DECLARED, fileSize: 52_428_801 });
    await refuse({ ...DECLARED, fileSize: 0 });
    await refuse({ ...DECLARED, fileType: 'text/html' });
    await refuse({ ...DECLARED, fileName: '../etc/passwd' });
    await refuse({ ...DECLARED, bot_id: other.botId });
    await requestCredentials(ctx, { bot: bot.token }, { ...DECLARED, fileSize: 52_428_800 }).expect(201);
    const complete = await completeUpload(ctx, { bot: bot.token }, { ...DECLARED, key: 'x', owner: 'y' }).expect(400);
    expect(complete.body.code).toBe('VALIDATION');
  });

  it('refuses a wrong Content-Type with 415 and stores nothing; the URL still works with the right one', async () => {
    const target = await credentials();
    const res = await callUrl(ctx, 'PUT', target.uploadUrl, { ...target.headers, 'Content-Type': 'image/gif' }, PNG);
    expect(res.status).toBe(415);
    expect(res.json()).toMatchObject({ success: false, code: 'UPLOAD_TYPE_MISMATCH' });
    expect(existsSync(keyFile(target.key))).toBe(false);
    expect((await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG)).status).toBe(204);
    expect(existsSync(keyFile(target.key))).toBe(true);
  });

  it('refuses bytes of another size than declared with 400 and stores nothing', async () => {
    const target = await credentials();
    const shorter = PNG.subarray(0, PNG.length - 3);
    const res = await callUrl(ctx, 'PUT', target.uploadUrl, { 'Content-Type': 'image/png' }, shorter);
    expect(res.status).toBe(400);
    expect(res.json().code).toBe('UPLOAD_SIZE_MISMATCH');
    const longer = Buffer.concat([PNG, Buffer.from('tail')]);
    expect((await callUrl(ctx, 'PUT', target.uploadUrl, { 'Content-Type': 'image/png' }, longer)).status).toBe(400);
    expect(existsSync(keyFile(target.key))).toBe(false);
  });

  it('refuses a chunked body that sends more bytes than declared, without keeping any', async () => {
    const target = await credentials();
    const server = ctx.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const path = target.uploadUrl.slice(ctx.config.FILE_PUBLIC_BASE_URL.length);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path,
        method: 'PUT',
        headers: { 'Content-Type': 'image/png' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(PNG);
      req.end(Buffer.alloc(1024));
    });
    expect(status).toBe(400);
    expect(existsSync(keyFile(target.key))).toBe(false);
    expect(storedFiles(join(directory, '.incoming'))).toEqual([]);
  });

  it('refuses a used URL with 409 and keeps the first upload', async () => {
    const target = await credentials();
    expect((await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG)).status).toBe(204);
    const other = pngOf(6, 6, 200);
    const again = await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, other);
    expect(again.status).toBe(409);
    expect(again.json().code).toBe('UPLOAD_ALREADY_USED');
    const completed = await completeUpload(ctx, { bot: bot.token }, { key: target.key, ...DECLARED }).expect(201);
    expect((await callUrl(ctx, 'GET', completed.body.data.url)).body.equals(PNG)).toBe(true);
  });

  it('lets one of two concurrent PUTs of one URL store its bytes and refuses the other with 409', async () => {
    const target = await credentials();
    const answers = await Promise.all([
      callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG),
      callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 409]);
  });

  it("refuses another key's signature, and tampered size, type or expiry, with 403 and stores nothing", async () => {
    const a = await credentials();
    const b = await credentials();
    const [pathA, queryA] = a.uploadUrl.split('?');
    const pathB = b.uploadUrl.split('?')[0];
    const wrongKey = await callUrl(ctx, 'PUT', `${pathB}?${queryA}`, a.headers, PNG);
    expect(wrongKey.status).toBe(403);
    expect(wrongKey.json().code).toBe('FILE_URL_INVALID');
    const tamper = (name: string, value: string) => {
      const params = new URLSearchParams(queryA);
      params.set(name, value);
      return `${pathA}?${params}`;
    };
    const bigger = Buffer.concat([PNG, Buffer.from('x')]);
    expect(
      (await callUrl(ctx, 'PUT', tamper('size', String(bigger.length)), { 'Content-Type': 'image/png' }, bigger))
        .status,
    ).toBe(403);
    expect((await callUrl(ctx, 'PUT', tamper('type', 'image/gif'), { 'Content-Type': 'image/gif' }, PNG)).status).toBe(
      403,
    );
    expect((await callUrl(ctx, 'PUT', tamper('expires', String(a.expiresAt + 3600)), a.headers, PNG)).status).toBe(403);
    const missing = await callUrl(ctx, 'PUT', pathA, a.headers, PNG);
    expect(missing.status).toBe(400);
    expect(existsSync(keyFile(a.key))).toBe(false);
    expect(existsSync(keyFile(b.key))).toBe(false);
  });

  it('refuses a download URL that was tampered with, and never lets an upload URL download', async () => {
    const { file } = await uploadFile(ctx, { bot: bot.token }, PNG, 'pic.png', 'image/png');
    const [path, query] = (file.url as string).split('?');
    const params = new URLSearchParams(query);
    params.set('type', 'text/html');
    const tampered = await callUrl(ctx, 'GET', `${path}?${params}`);
    expect(tampered.status).toBe(403);
    expect(tampered.json().code).toBe('FILE_URL_INVALID');

    // An upload URL's signature covers the method: read as a download URL it does not verify.
    const upload = await credentials();
    await callUrl(ctx, 'PUT', upload.uploadUrl, upload.headers, PNG);
    const [uploadPath, uploadQuery] = upload.uploadUrl.split('?');
    const asDownload = new URLSearchParams(uploadQuery);
    asDownload.delete('size');
    const misused = await callUrl(ctx, 'GET', `${uploadPath}?${asDownload}`);
    expect(misused.status).toBe(403);
    expect(misused.json().code).toBe('FILE_URL_INVALID');
  });

  it('completes once: a second complete is 409, before any bytes 409 UPLOAD_NOT_RECEIVED, a changed declaration 400', async () => {
    const early = await credentials();
    const notYet = await completeUpload(ctx, { bot: bot.token }, { key: early.key, ...DECLARED }).expect(409);
    expect(notYet.body.code).toBe('UPLOAD_NOT_RECEIVED');
    await callUrl(ctx, 'PUT', early.uploadUrl, early.headers, PNG);
    const changed = await completeUpload(
      ctx,
      { bot: bot.token },
      { key: early.key, ...DECLARED, fileName: 'other.png' },
    );
    expect(changed.status).toBe(400);
    expect(changed.body.code).toBe('VALIDATION');
    await completeUpload(ctx, { bot: bot.token }, { key: early.key, ...DECLARED }).expect(201);
    const twice = await completeUpload(ctx, { bot: bot.token }, { key: early.key, ...DECLARED }).expect(409);
    expect(twice.body.code).toBe('CONFLICT');
  });

  it('makes one file of two concurrent completes; the other answers 409', async () => {
    const target = await credentials();
    await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG);
    const answers = await Promise.all([
      completeUpload(ctx, { bot: bot.token }, { key: target.key, ...DECLARED }),
      completeUpload(ctx, { bot: bot.token }, { key: target.key, ...DECLARED }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const rows = await ctx.app.get(DataSource).query(`SELECT 1 FROM files WHERE storage_key = $1`, [target.key]);
    expect(rows).toHaveLength(1);
  });

  it("keeps tenants apart: another bot's or user's key is 404 at complete; files of another bot are 404 to every send", async () => {
    const target = await credentials();
    await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG);
    const foreign = await completeUpload(ctx, { bot: other.token }, { key: target.key, ...DECLARED }).expect(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    const bob = await ctx.jwt('bob');
    await completeUpload(ctx, { user: bob }, { key: target.key, ...DECLARED }).expect(404);
    const { file } = await uploadFile(ctx, { bot: bot.token }, PNG, 'pic.png', 'image/png');

    const carol = await ctx.jwt('carol');
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${carol}`)
      .send({ bot_id: other.botId })
      .expect(201);
    const chatId = chat.body.data.id;
    for (const method of [
      'sendPhoto',
      'sendDocument',
      'sendVideo',
      'sendAudio',
      'sendVoice',
      'sendAnimation',
      'sendSticker',
    ]) {
      const res = await callBot(ctx, other.token, method, { chat_id: chatId, file_id: file.file_id });
      expect([method, res.status, res.body.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    const group = await callBot(ctx, other.token, 'sendMediaGroup', {
      chat_id: chatId,
      media: [
        { type: 'photo', file_id: file.file_id },
        { type: 'photo', file_id: file.file_id },
      ],
    });
    expect(group.status).toBe(404);
    // A person cannot post a bot's file either, nor another person's upload.
    const posted = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${carol}`)
      .send({ file_id: file.file_id });
    expect(posted.status).toBe(404);
    const { file: bobs } = await uploadFile(ctx, { user: bob }, PNG, 'bob.png', 'image/png');
    const stolen = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${carol}`)
      .send({ file_id: bobs.file_id });
    expect(stolen.status).toBe(404);
  });

  it('keeps people apart on the client routes and rejects unknown fields there too', async () => {
    const dana = await ctx.jwt('dana');
    const erin = await ctx.jwt('erin');
    const target = (await requestCredentials(ctx, { user: dana }, DECLARED).expect(201)).body.data;
    expect(target.key).toMatch(/^users\/[0-9a-f]{32}\/[0-9a-f-]{36}$/);
    expect((await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG)).status).toBe(204);
    const foreign = await completeUpload(ctx, { user: erin }, { key: target.key, ...DECLARED }).expect(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    await completeUpload(ctx, { bot: bot.token }, { key: target.key, ...DECLARED }).expect(404);
    const unknown = await requestCredentials(ctx, { user: dana }, { ...DECLARED, user_id: 'erin' }).expect(400);
    expect(unknown.body.code).toBe('VALIDATION');
    await completeUpload(ctx, { user: dana }, { key: target.key, ...DECLARED, user_id: 'erin' }).expect(400);
    const done = await completeUpload(ctx, { user: dana }, { key: target.key, ...DECLARED }).expect(201);
    expect(done.body.data).toMatchObject({ file_name: 'pic.png', width: 6, height: 6 });
  });

  it('needs a credential on the upload and getFile routes', async () => {
    const server = ctx.app.getHttpServer();
    await request(server).post('/api/v1/bots/files/upload-credentials').send(DECLARED).expect(401);
    await request(server)
      .post('/api/v1/bots/files/complete')
      .send({ key: 'k', ...DECLARED })
      .expect(401);
    await request(server).post('/api/v1/bots/client/files/upload-credentials').send(DECLARED).expect(401);
    await request(server)
      .post('/api/v1/bots/client/files/complete')
      .send({ key: 'k', ...DECLARED })
      .expect(401);
    await request(server).get('/api/v1/bots/getFile?file_id=x').expect(401);
    const unknown = await callBot(ctx, bot.token, 'getFile', { file_id: 'not-a-uuid' }).expect(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    await callBot(ctx, bot.token, 'getFile', { file_id: '00000000-0000-4000-8000-000000000000', x: 1 }).expect(400);
  });
});

describe('expiry and purge of uploads (disk driver, short lifetimes)', () => {
  let directory: string;
  let ctx: BotTestContext;
  let bot: ApprovedBot;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'bot-files-'));
    ctx = await startBotApp({
      FILE_STORAGE_DIR: directory,
      FILE_UPLOAD_TTL_SECONDS: '2',
      FILE_DOWNLOAD_URL_TTL_SECONDS: '1',
      FILE_UPLOAD_PURGE_INTERVAL_MS: '1000',
    });
    bot = await createApprovedBot(ctx, 'dev-1');
  });
  afterAll(async () => {
    await ctx?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses an expired upload URL with 410 and stores nothing; complete after expiry is 410 too', async () => {
    const target = (await requestCredentials(ctx, { bot: bot.token }, DECLARED).expect(201)).body.data;
    // A PUT in time would store the bytes, so the test waits for the URL's stated end and the upload row's
    // expiry instead of trying the URL until it is refused.
    const db = ctx.app.get(DataSource);
    await waitUntil(
      async () =>
        Date.now() >= urlExpiresAt(target.uploadUrl) &&
        (
          await db.query(`SELECT expires_at < now() AS expired FROM file_uploads WHERE storage_key = $1`, [target.key])
        )[0].expired,
      'the upload URL and the upload expire',
    );
    const put = await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG);
    expect(put.status).toBe(410);
    expect(put.json().code).toBe('FILE_URL_EXPIRED');
    expect(existsSync(join(directory, target.key))).toBe(false);
    const late = await completeUpload(ctx, { bot: bot.token }, { key: target.key, ...DECLARED }).expect(410);
    expect(late.body.code).toBe('UPLOAD_EXPIRED');
  });

  it('refuses an expired download URL with 410', async () => {
    const { file } = await uploadFile(ctx, { bot: bot.token }, PNG, 'pic.png', 'image/png');
    expect((await callUrl(ctx, 'GET', file.url)).status).toBe(200);
    // URLs carry whole seconds, rounded up: a 1 s lifetime ends within 2 s.
    await eventually(async () => {
      const expired = await callUrl(ctx, 'GET', file.url);
      expect(expired.status).toBe(410);
      expect(expired.json().code).toBe('FILE_URL_EXPIRED');
    }, 2100);
  });

  it('purges an uploaded but never completed upload after its expiry: the row and the bytes', async () => {
    const target = (await requestCredentials(ctx, { bot: bot.token }, DECLARED).expect(201)).body.data;
    expect((await callUrl(ctx, 'PUT', target.uploadUrl, target.headers, PNG)).status).toBe(204);
    const { key: completedKey } = await uploadFile(ctx, { bot: bot.token }, PNG, 'kept.png', 'image/png');
    expect(existsSync(join(directory, target.key))).toBe(true);
    const db = ctx.app.get(DataSource);
    const pending = () => db.query(`SELECT 1 FROM file_uploads WHERE storage_key = $1`, [target.key]);
    expect(await pending()).toHaveLength(1);
    // Expiry (2 s) plus the grace period (the upload lifetime, 2 s), then the next run of the job (every second).
    await waitUntil(async () => (await pending()).length === 0, 'the purge of the pending upload', 15_000);
    expect(existsSync(join(directory, target.key))).toBe(false);
    // The completed file keeps its bytes and its row; only its pending row goes.
    expect(existsSync(join(directory, completedKey))).toBe(true);
    expect(await db.query(`SELECT 1 FROM files WHERE storage_key = $1`, [completedKey])).toHaveLength(1);
  });
});
