import type { INestApplication } from '@nestjs/common';
import { createTestApp, describeEachBackend, waitUntil } from '@app/testing';
import request from 'supertest';
import { AppModule } from '../src/app.module';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, openPrivateChat, startBotApp } from './app-context';

/** Chat actions ("typing…", spec 8) live in Redis or, in the PostgreSQL-only mode, in the chat_actions table. */
describeEachBackend('chat actions', (backend) => {
  let ctx: BotTestContext;
  let other: INestApplication;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    ctx = await startBotApp({ COORDINATION_BACKEND: backend });
    other = await createTestApp(AppModule.forRoot(ctx.config));
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'typing_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    chatId = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(async () => {
    await other.close();
    await ctx.close();
  });

  const send = (body: object) => callBot(ctx, bot.token, 'sendChatAction', { chat_id: chatId, ...body });
  const actionsSeenBy = async (app: INestApplication) =>
    (
      await request(app.getHttpServer())
        .get(`/api/v1/bots/client/chats/${chatId}/messages?pageSize=1`)
        .set('Authorization', `Bearer ${alice}`)
        .expect(200)
    ).body.data.chat_actions as { user_id: string; action: string; expires_at_ms: number }[];

  it('shows a chat action to the chat members for a few seconds', async () => {
    const res = await send({ action: 'typing' }).expect(200);
    expect(res.body).toEqual({ success: true, data: true });
    const actions = await actionsSeenBy(ctx.app);
    expect(actions).toEqual([{ user_id: bot.systemUserId, action: 'typing', expires_at_ms: expect.any(Number) }]);
    const expiresIn = actions[0].expires_at_ms - Date.now();
    expect(expiresIn).toBeGreaterThan(2000);
    expect(expiresIn).toBeLessThanOrEqual(5000);
    const res400 = await send({ action: 'dancing' });
    expect(res400.status).toBe(400);
    expect(res400.body).toEqual({ success: false, code: 'VALIDATION', message: expect.any(String) });
  });

  it('shows the latest action of a member through every replica, and none once it has expired', async () => {
    await send({ action: 'upload_photo' }).expect(200);
    const seen = await actionsSeenBy(other);
    expect(seen).toEqual([{ user_id: bot.systemUserId, action: 'upload_photo', expires_at_ms: expect.any(Number) }]);
    await waitUntil(async () => (await actionsSeenBy(other)).length === 0, 'the action expires', 8000);
    expect(Date.now()).toBeGreaterThanOrEqual(seen[0].expires_at_ms);
  });
});
