import request from 'supertest';
import { ApprovedBot, BotTestContext, createApprovedBot, startBotApp } from './app-context';

describe('bot self and profile methods', () => {
  let ctx: BotTestContext;
  let server: ReturnType<BotTestContext['app']['getHttpServer']>;
  let bot: ApprovedBot;
  let other: ApprovedBot;
  let auth: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    server = ctx.app.getHttpServer();
    [bot, other] = await Promise.all([createApprovedBot(ctx, 'dev'), createApprovedBot(ctx, 'dev2')]);
    auth = `Bearer ${bot.token}`;
  });
  afterAll(() => ctx.close());

  const call = (method: string, body: object = {}, token = auth) =>
    request(server).post(`/api/v1/bots/${method}`).set('Authorization', token).send(body);

  describe('short description', () => {
    it('sets and reads it by POST and GET, and an empty string removes it', async () => {
      expect(
        (await call('setMyShortDescription', { short_description: 'Weather in 5 seconds' }).expect(200)).body,
      ).toEqual({
        success: true,
        data: true,
      });
      expect((await call('getMyShortDescription').expect(200)).body.data).toEqual({
        short_description: 'Weather in 5 seconds',
      });
      const viaGet = await request(server)
        .get('/api/v1/bots/getMyShortDescription')
        .set('Authorization', auth)
        .expect(200);
      expect(viaGet.body.data).toEqual({ short_description: 'Weather in 5 seconds' });
      await call('setMyShortDescription', { short_description: '' }).expect(200);
      expect((await call('getMyShortDescription').expect(200)).body.data).toEqual({ short_description: '' });
    });

    it('accepts 120 characters and refuses 121 with 400 VALIDATION', async () => {
      await call('setMyShortDescription', { short_description: 's'.repeat(120) }).expect(200);
      const res = await call('setMyShortDescription', { short_description: 's'.repeat(121) }).expect(400);
      expect(res.body).toEqual({ success: false, code: 'VALIDATION', message: expect.any(String) });
    });
  });

  it('keeps a multi-line description and shows it in getMe and the developer view', async () => {
    await call('setMyDescription', { description: 'Line one\nLine two' }).expect(200);
    expect((await call('getMyDescription').expect(200)).body.data).toEqual({ description: 'Line one\nLine two' });
    const me = await request(server).get('/api/v1/bots/me').set('Authorization', auth).expect(200);
    expect(me.body.data.description).toBe('Line one\nLine two');
    const dev = await request(server)
      .get(`/api/v1/bots/my/${bot.botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev')}`);
    expect(dev.body.data.description).toBe('Line one\nLine two');
    expect((await call('getMyDescription', {}, `Bearer ${other.token}`).expect(200)).body.data).toEqual({
      description: '',
    });
  });

  it('answers getMyDescription over GET as over POST', async () => {
    await call('setMyDescription', { description: 'Read either way' }).expect(200);
    const viaGet = await request(server).get('/api/v1/bots/getMyDescription').set('Authorization', auth).expect(200);
    expect(viaGet.body.data).toEqual({ description: 'Read either way' });
    expect((await call('getMyDescription').expect(200)).body.data).toEqual(viaGet.body.data);
  });

  describe('commands', () => {
    const commands = [
      { command: 'start', description: 'Start the bot' },
      { command: 'help', description: 'Show help' },
    ];

    it('stores a list per scope and language_code, and reads each back exactly', async () => {
      await call('setMyCommands', { commands }).expect(200);
      await call('setMyCommands', {
        commands: [{ command: 'hilfe', description: 'Hilfe' }],
        language_code: 'de',
      }).expect(200);
      await call('setMyCommands', {
        commands: [{ command: 'admin_only', description: 'For admins' }],
        scope: { type: 'chat_administrators', chat_id: 'chat-1' },
      }).expect(200);

      expect((await call('getMyCommands').expect(200)).body.data).toEqual(commands);
      expect((await call('getMyCommands', { scope: { type: 'default' } }).expect(200)).body.data).toEqual(commands);
      expect((await call('getMyCommands', { language_code: 'de' }).expect(200)).body.data).toEqual([
        { command: 'hilfe', description: 'Hilfe' },
      ]);
      expect(
        (await call('getMyCommands', { scope: { type: 'chat_administrators', chat_id: 'chat-1' } }).expect(200)).body
          .data,
      ).toEqual([{ command: 'admin_only', description: 'For admins' }]);
      expect((await call('getMyCommands', { scope: { type: 'all_group_chats' } }).expect(200)).body.data).toEqual([]);
      expect((await call('getMyCommands', {}, `Bearer ${other.token}`).expect(200)).body.data).toEqual([]);
    });

    it('answers getMyCommands on GET with the scope as JSON in the query', async () => {
      const res = await request(server)
        .get('/api/v1/bots/getMyCommands')
        .query({ scope: JSON.stringify({ type: 'chat_administrators', chat_id: 'chat-1' }) })
        .set('Authorization', auth)
        .expect(200);
      expect(res.body.data).toEqual([{ command: 'admin_only', description: 'For admins' }]);
      await request(server)
        .get('/api/v1/bots/getMyCommands')
        .query({ scope: '{not json' })
        .set('Authorization', auth)
        .expect(400);
    });

    it('replaces the whole list on a second set and removes it with deleteMyCommands', async () => {
      await call('setMyCommands', { commands: [{ command: 'only', description: 'The one' }] }).expect(200);
      expect((await call('getMyCommands').expect(200)).body.data).toEqual([
        { command: 'only', description: 'The one' },
      ]);
      expect((await call('deleteMyCommands').expect(200)).body.data).toBe(true);
      expect((await call('getMyCommands').expect(200)).body.data).toEqual([]);
      expect((await call('getMyCommands', { language_code: 'de' }).expect(200)).body.data).toHaveLength(1);
    });

    it('refuses bad commands, descriptions, scopes and more than 100 commands with 400 VALIDATION', async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => ({ command: `c${i}`, description: `Command ${i}` }));
      await call('setMyCommands', { commands: hundred }).expect(200);
      for (const body of [
        { commands: [...hundred, { command: 'c100', description: 'one too many' }] },
        { commands: [{ command: 'Start', description: 'upper case' }] },
        { commands: [{ command: 'x'.repeat(33), description: 'too long' }] },
        { commands: [{ command: '', description: 'empty' }] },
        { commands: [{ command: 'ok', description: '' }] },
        { commands: [{ command: 'ok', description: 'd'.repeat(257) }] },
        {
          commands: [
            { command: 'dup', description: 'a' },
            { command: 'dup', description: 'b' },
          ],
        },
        { commands, scope: { type: 'chat' } },
        { commands, scope: { type: 'default', chat_id: 'c1' } },
        { commands, scope: { type: 'chat_member', chat_id: 'c1' } },
        { commands, scope: { type: 'everyone' } },
        { commands, language_code: 'english' },
        {},
      ]) {
        const res = await call('setMyCommands', body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION');
      }
      await call('setMyCommands', { commands: [{ command: 'x'.repeat(32), description: 'd'.repeat(256) }] }).expect(
        200,
      );
    });
  });
});
