import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';
import { pngOf, uploadFile } from './file-uploads';

/** A person's file_id opens to a bot only once the bot received a message carrying it. */
describe('file visibility follows what a bot received', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let groupId: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'gallery_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    const group = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats')
      .set('Authorization', `Bearer ${alice}`)
      .send({ type: 'group', title: 'Photos', member_ids: [] })
      .expect(201);
    groupId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  async function alicePosts(chatId: string, text: string): Promise<string> {
    const { file } = await uploadFile(ctx, { user: alice }, pngOf(3, 2, Math.random()), 'p.png', 'image/png');
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ file_id: file.file_id, text })
      .expect(201);
    return file.file_id;
  }

  const getFile = (fileId: string) => callBot(ctx, bot.token, 'getFile', { file_id: fileId });

  it('a photo posted before the bot joined, or hidden from it by group privacy, answers 404 on getFile and on sends', async () => {
    const beforeJoining = await alicePosts(groupId, '/look before the bot came');
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${groupId}/members`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ user_id: bot.systemUserId })
      .expect(200);
    const hidden = await alicePosts(groupId, 'holiday pictures, not for bots');
    for (const fileId of [beforeJoining, hidden]) {
      await getFile(fileId).expect(404);
      await callBot(ctx, bot.token, 'sendPhoto', { chat_id: groupId, file_id: fileId }).expect(404);
    }
  });

  it('a photo the bot received through group privacy (a mention) opens to getFile', async () => {
    const mentioned = await alicePosts(groupId, 'what is this, @gallery_bot?');
    const res = await getFile(mentioned).expect(200);
    expect(res.body.data.file_id).toBe(mentioned);
  });
});
