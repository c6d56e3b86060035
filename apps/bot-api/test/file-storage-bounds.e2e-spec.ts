import request from 'supertest';
import { DataSource } from 'typeorm';
import { FileRetentionPurgeService } from '../src/files/file-retention-purge.service';
import { BotTestContext, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import { diskStorage, requestCredentials, StorageUnderTest, uploadFile } from './file-uploads';

const QUOTA = 1000;

describe('what a bot can make the file storage hold', () => {
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let db: DataSource;

  beforeAll(async () => {
    storage = await diskStorage();
    ctx = await startBotApp({
      ...storage.env,
      BOT_STORAGE_QUOTA_BYTES: String(QUOTA),
      FILE_UNREFERENCED_RETENTION_HOURS: '1',
    });
    db = ctx.app.get(DataSource);
  });
  afterAll(async () => {
    await ctx.close();
    await storage.stop();
  });

  const declare = (token: string, fileSize: number) =>
    requestCredentials(ctx, { bot: token }, { fileName: 'a.txt', fileSize, fileType: 'text/plain' });

  it('refuses upload credentials past the bot quota, counting files and pending uploads (defect 7: every credential reserved 50 MB without bound)', async () => {
    const { token } = await createApprovedBot(ctx, 'dev-1', { username: 'quota_bot' });
    await uploadFile(ctx, { bot: token }, Buffer.alloc(300, 1), 'a.txt', 'text/plain');
    await declare(token, 600).expect(201);
    const refused = await declare(token, 101);
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 403,
      code: 'STORAGE_QUOTA_EXCEEDED',
    });
    await declare(token, 100).expect(201);
  });

  it('lets exactly what fits through when a bot asks for credentials in parallel (defect 7)', async () => {
    const { token } = await createApprovedBot(ctx, 'dev-2', { username: 'parallel_quota_bot' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => declare(token, 200)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 201, 201, 403, 403, 403]);
  });

  it('refuses a multipart upload past the quota on the Telegram face, storing nothing (defect 7)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-3', { username: 'tg_quota_bot' });
    const alice = await ctx.jwt('alice', 'Alice');
    const chat = await openPrivateChat(ctx, alice, bot.botId);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chat}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'hi' })
      .expect(201);
    const updates = await request(ctx.app.getHttpServer()).get(`/telegram/bot${bot.token}/getUpdates`).expect(200);
    const chatId = updates.body.result[0].message.chat.id;
    const send = (bytes: number) =>
      request(ctx.app.getHttpServer())
        .post(`/telegram/bot${bot.token}/sendDocument`)
        .field('chat_id', String(chatId))
        .attach('document', Buffer.alloc(bytes, 2), { filename: 'big.txt', contentType: 'text/plain' });
    await send(900).expect(200);
    const refused = await send(200);
    expect({ status: refused.status, ok: refused.body.ok }).toEqual({ status: 403, ok: false });
    const [row] = await db.query(`SELECT count(*)::int AS n FROM files WHERE bot_id = $1`, [bot.botId]);
    expect(row.n).toBe(1);
  });

  it('checks the chat before storing an uploaded part: a refused send leaves no file (defect 7)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-4', { username: 'stranger_bot' });
    const otherChat = await openPrivateChat(
      ctx,
      await ctx.jwt('bob', 'Bob'),
      (await createApprovedBot(ctx, 'dev-5', { username: 'owner_bot' })).botId,
    );
    for (const chatId of ['-424242', otherChat]) {
      const refused = await request(ctx.app.getHttpServer())
        .post(`/telegram/bot${bot.token}/sendDocument`)
        .field('chat_id', chatId)
        .attach('document', Buffer.from('not for you'), { filename: 'x.txt', contentType: 'text/plain' });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
    }
    const [row] = await db.query(`SELECT count(*)::int AS n FROM files WHERE bot_id = $1`, [bot.botId]);
    expect(row.n).toBe(0);
  });

  it('purges files no message references after FILE_UNREFERENCED_RETENTION_HOURS, keeping sent, kept and recent ones (defect 7: files were never deleted)', async () => {
    const { token } = await createApprovedBot(ctx, 'dev-6', { username: 'old_files_bot' });
    const upload = async () =>
      (await uploadFile(ctx, { bot: token }, Buffer.from('x'), 'a.txt', 'text/plain')).file.file_id as string;
    const [stale, recent, kept] = [await upload(), await upload(), await upload()];
    await db.query(`UPDATE files SET created_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [
      [stale, kept],
    ]);
    await db.query(`UPDATE files SET kept_at = now() WHERE id = $1`, [kept]);
    const sentIds: Array<{ file_id: string }> = await db.query(
      `SELECT DISTINCT file_id FROM messages WHERE file_id IS NOT NULL`,
    );
    await db.query(`UPDATE files SET created_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [
      sentIds.map((row) => row.file_id),
    ]);

    expect(await ctx.app.get(FileRetentionPurgeService).sweep()).toBeGreaterThanOrEqual(1);
    const left: Array<{ id: string }> = await db.query(`SELECT id FROM files WHERE id = ANY($1::uuid[])`, [
      [stale, recent, kept, ...sentIds.map((row) => row.file_id)],
    ]);
    expect(left.map((row) => row.id).sort()).toEqual([recent, kept, ...sentIds.map((row) => row.file_id)].sort());
    expect(sentIds.length).toBeGreaterThan(0);
  });
});
