import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotTestContext, callBot, createApprovedBot, insertFile, startBotApp } from './app-context';

/** Security review, defect 8: malformed input that used to answer 500 gets a 400 in the envelope. */
describe('hostile request bodies', () => {
  let ctx: BotTestContext;
  let token: string;
  let chatId: string;
  let photo: string;
  const server = () => ctx.app.getHttpServer();

  beforeAll(async () => {
    ctx = await startBotApp();
    const bot = await createApprovedBot(ctx, 'dev-hostile');
    token = bot.token;
    const opened = await request(server())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${await ctx.jwt('user-hostile')}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    chatId = opened.body.data.id;
    photo = await insertFile(ctx, { botId: bot.botId });
  });
  afterAll(() => ctx.close());

  const messageCount = async () =>
    Number((await ctx.app.get(DataSource).query(`SELECT count(*) AS n FROM messages`))[0].n);

  it('defect 8: refuses a JSON body nested 10,000 levels deep with 400, not 500', async () => {
    const deep = `{"chat_id":"${chatId}","text":"x","reply_markup":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const res = await request(server())
      .post('/api/v1/bots/sendMessage')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(deep);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION' });
    expect(res.body.message).toMatch(/nests deeper than/);
  });

  it('defect 8: refuses an array nested inside sendMediaGroup media with 400 and sends nothing', async () => {
    const before = await messageCount();
    const res = await callBot(ctx, token, 'sendMediaGroup', {
      chat_id: chatId,
      media: [[{ type: 'photo', file_id: photo }], { type: 'photo', file_id: photo }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION' });
    expect(await messageCount()).toBe(before);
  });

  it('defect 8: lists at most 20 problems of a body with thousands of bad elements', async () => {
    const res = await callBot(ctx, token, 'sendMessage', { chat_id: chatId, text: 'x', ...manyUnknownFields(5000) });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/and 4980 more/);
    expect(JSON.stringify(res.body).length).toBeLessThan(5000);
  });
});

function manyUnknownFields(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`unknown_${i}`, i]));
}
