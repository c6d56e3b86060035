import { describeEachBackend, eventually } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { SendQuotaService } from '../src/quotas/send-quota.service';
import { BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';

/** The three quota windows are counted together; only sends that go through count against them. */
describeEachBackend('send quota windows', (backend) => {
  // Each test waits for real one-second windows to pass, so the default 5 s is too tight under load.
  jest.setTimeout(20_000);
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp({ COORDINATION_BACKEND: backend });
  });
  afterAll(() => ctx.close());

  it('does not count sends refused by the per-second window against the per-minute window', async () => {
    const bot = await createApprovedBot(ctx, 'dev-q', { username: 'quota_bot' });
    await ctx.app
      .get(DataSource)
      .query(`UPDATE bots SET rate_limits = '{"send_per_sec": 2, "send_per_min": 5}' WHERE id = $1`, [bot.botId]);
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${await ctx.jwt('quinn')}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    const send = (text: string) => callBot(ctx, bot.token, 'sendMessage', { chat_id: chat.body.data.id, text });
    // The first sends of a fresh app plan their statements on each pooled connection: made by another bot
    // first, so that the burst below takes milliseconds, not the second its window lasts, on a loaded box.
    const warmUp = await createApprovedBot(ctx, 'dev-q', { username: 'quota_warm_up_bot' });
    const warmChat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${await ctx.jwt('quinn')}`)
      .send({ bot_id: warmUp.botId })
      .expect(201);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        callBot(ctx, warmUp.token, 'sendMessage', { chat_id: warmChat.body.data.id, text: `warm ${i}` }),
      ),
    );

    // A window starts with its first send and lasts its length, so the burst falls in one second.
    const burst = await Promise.all(Array.from({ length: 6 }, (_, i) => send(`burst ${i}`)));
    expect(burst.filter((res) => res.status === 201)).toHaveLength(2);
    const refused = burst.filter((res) => res.status === 429);
    expect(refused).toHaveLength(4);
    expect(refused[0].body.message).toContain('per sec');

    // 2 of 5 per-minute sends used: three more go through as the per-second window makes room (each one retried
    // while that window refuses it), and then the minute refuses, however long the sender retries.
    for (const text of ['later 1', 'later 2', 'later 3']) {
      await eventually(async () => expect((await send(text)).status).toBe(201), 1100);
    }
    await eventually(async () => {
      const overMinute = await send('one too many');
      expect(overMinute.status).toBe(429);
      expect(overMinute.body.message).toContain('per min');
    }, 1100);
  });

  it('leaves no trace of refused sends in the minute window even when a burst overlaps completely', async () => {
    const quotas = ctx.app.get(SendQuotaService);
    const bot = { id: 'f'.repeat(24), rateLimits: { send_per_sec: 2, send_per_min: 5 } };
    // Issued in one tick, the six sends reach every window before any refusal gives points back.
    const burst = await Promise.allSettled(Array.from({ length: 6 }, () => quotas.consume(bot)));
    expect(burst.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2);
    for (let i = 0; i < 3; i++) {
      await eventually(
        () => expect(quotas.consume(bot)).resolves.toMatchObject({ remaining: expect.any(Number) }),
        1100,
      );
    }
    await eventually(
      () =>
        expect(quotas.consume(bot)).rejects.toMatchObject({ status: 429, message: expect.stringContaining('per min') }),
      1100,
    );
  });
});
