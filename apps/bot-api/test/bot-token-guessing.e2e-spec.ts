import request from 'supertest';
import { BotsStore } from '../src/bots/bots.store';
import { BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';

const wellShaped = (n: number) => `sbot_${String(n).padStart(43, 'Z')}`;

describe('bot token guessing', () => {
  let ctx: BotTestContext;
  let lookups: jest.SpyInstance;

  beforeAll(async () => {
    ctx = await startBotApp({ BOT_TOKEN_FAILURES_PER_MINUTE: '3' });
    lookups = jest.spyOn(ctx.app.get(BotsStore), 'findByTokenHash');
  });
  afterAll(async () => {
    lookups.mockRestore();
    await ctx.close();
  });

  it('refuses a value without the shape of a bot token before any database look-up (defect 9)', async () => {
    lookups.mockClear();
    for (const token of ['sbot_short', `sbot_${'a'.repeat(42)}!`, 'sop_' + 'a'.repeat(43), 'x'.repeat(500)]) {
      const res = await callBot(ctx, token, 'getMe');
      expect({ token, status: res.status, code: res.body.code }).toEqual({
        token,
        status: 401,
        code: 'INVALID_BOT_TOKEN',
      });
    }
    await request(ctx.app.getHttpServer()).get('/telegram/botnot-a-token/getMe').expect(401);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('answers 429 to an address past BOT_TOKEN_FAILURES_PER_MINUTE unknown tokens on every face, and looks none of them up (defect 9)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-1', { username: 'guessed_bot' });
    await callBot(ctx, bot.token, 'getMe').expect(200);
    lookups.mockClear();
    for (let guess = 0; guess < 3; guess++) await callBot(ctx, wellShaped(guess), 'getMe').expect(401);
    // The directory of current tokens answers for a made-up one: no look-up of its own.
    expect(lookups).not.toHaveBeenCalled();

    const locked = await callBot(ctx, wellShaped(3), 'getMe');
    expect({ status: locked.status, code: locked.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    const verify = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/verifyToken')
      .send({ token: wellShaped(4) });
    expect(verify.status).toBe(429);
    const telegram = await request(ctx.app.getHttpServer()).get(`/telegram/bot${wellShaped(5)}/getMe`);
    expect({ status: telegram.status, ok: telegram.body.ok }).toEqual({ status: 429, ok: false });
    expect(lookups).not.toHaveBeenCalled();

    // A token this process already knows is not a guess: it is answered from the cache.
    await callBot(ctx, bot.token, 'getMe').expect(200);
  });
});
