import request from 'supertest';
import { Bot as GrammyBot } from 'grammy';
import { DataSource } from 'typeorm';
import {
  BotTestContext,
  callBot,
  clientAs,
  createApprovedBot,
  ensureUsers,
  STAFF_ID,
  startBotApp,
  submitBot,
} from './app-context';
import { listenForFrameworks, until, whilePolling } from './telegram-support';

/** A bot that applied without a username gets one on approval, so getMe always carries one (as Telegram's). */
describe('usernames of bots that applied without one', () => {
  let ctx: BotTestContext;
  let apiRoot: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    apiRoot = await listenForFrameworks(ctx);
  });
  afterAll(() => ctx.close());

  const server = () => ctx.app.getHttpServer();
  const approve = async (botId: string) =>
    request(server())
      .post(`/api/v1/bots/admin/bots/${botId}/approve`)
      .set('Authorization', `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`);
  const getMe = async (token: string) => (await callBot(ctx, token, 'getMe').expect(200)).body.data;
  const patch = async (owner: string, botId: string, body: object) =>
    request(server())
      .patch(`/api/v1/bots/my/${botId}`)
      .set('Authorization', `Bearer ${await ctx.jwt(owner)}`)
      .send(body);

  it('gives the bot a username derived from its name, ending in bot, which getMe shows on both faces', async () => {
    const bot = await createApprovedBot(ctx, 'dev-latte', { name: 'Latte Bot' });
    expect((await getMe(bot.token)).username).toBe('latte_bot');
    const telegram = await request(server()).get(`/bot${bot.token}/getMe`).expect(200);
    expect(telegram.body.result).toMatchObject({ is_bot: true, first_name: 'Latte Bot', username: 'latte_bot' });
    const pending = await submitBot(ctx, 'dev-latte', { name: 'Latte Bot' });
    const mine = await request(server())
      .get(`/api/v1/bots/my/${pending}`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-latte')}`)
      .expect(200);
    // Before approval the application has no username; the review gives it.
    expect(mine.body.data.username).toBeNull();
    expect((await approve(pending)).body.data.username).toBe('latte_2_bot');
  });

  it('skips usernames another bot chose or was given, in any letter case, also while that bot still waits for review', async () => {
    await submitBot(ctx, 'dev-chosen', { name: 'Someone', username: 'Gadget_Bot' });
    await createApprovedBot(ctx, 'dev-chosen-2', { name: 'Other', username: 'gadget_2_BOT' });
    const bot = await createApprovedBot(ctx, 'dev-gadget', { name: 'Gadget' });
    expect((await getMe(bot.token)).username).toBe('gadget_3_bot');
  });

  it('gives distinct usernames to bots of the same name approved at the same moment', async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, (_, i) => submitBot(ctx, `dev-rush-${i}`, { name: 'Rush Hour' })),
    );
    const answers = await Promise.all(ids.map((id) => approve(id)));
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    const usernames = answers.map((answer) => answer.body.data.username as string);
    expect(new Set(usernames).size).toBe(8);
    expect([...usernames].sort()).toEqual(
      ['rush_hour_bot', ...[2, 3, 4, 5, 6, 7, 8].map((n) => `rush_hour_${n}_bot`)].sort(),
    );
    const systemUsers: Array<{ username: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT u.username FROM users u JOIN bots b ON b.system_user_id = u.id WHERE b.id = ANY($1)`, [ids]);
    expect(systemUsers.map((row) => row.username).sort()).toEqual([...usernames].sort());
  });

  it('lets the developer change a derived username like a chosen one, which frees it, but not remove it', async () => {
    const bot = await createApprovedBot(ctx, 'dev-rename', { name: 'Renamer' });
    expect((await getMe(bot.token)).username).toBe('renamer_bot');
    expect((await patch('dev-rename', bot.botId, { username: 'my_renamer' })).status).toBe(200);
    expect((await getMe(bot.token)).username).toBe('my_renamer');
    const removed = await patch('dev-rename', bot.botId, { username: null });
    expect(removed.status).toBe(400);
    expect(removed.body.message).toMatch(/always has a username/);
    expect((await getMe(bot.token)).username).toBe('my_renamer');
    const next = await createApprovedBot(ctx, 'dev-rename-2', { name: 'Renamer' });
    expect((await getMe(next.token)).username).toBe('renamer_bot');
  });

  it('gives a bot approved without a username by an earlier release one with its next change', async () => {
    const bot = await createApprovedBot(ctx, 'dev-legacy', { name: 'Old Timer' });
    const db = ctx.app.get(DataSource);
    await db.query(`UPDATE bots SET username = NULL WHERE id = $1`, [bot.botId]);
    await db.query(`UPDATE users SET username = NULL WHERE id = $1`, [bot.systemUserId]);
    expect((await patch('dev-legacy', bot.botId, { description: 'still here' })).body.data.username).toBe(
      'old_timer_bot',
    );
    expect((await getMe(bot.token)).username).toBe('old_timer_bot');
    const [user] = await db.query(`SELECT username FROM users WHERE id = $1`, [bot.systemUserId]);
    expect(user.username).toBe('old_timer_bot');
  });

  it('delivers /command@username and @username in groups for a derived username, and grammY matches the command', async () => {
    const bot = await createApprovedBot(ctx, 'dev-group', { name: 'Desk Helper' });
    const username = (await getMe(bot.token)).username as string;
    expect(username).toBe('desk_helper_bot');
    await ensureUsers(ctx, 'bob');
    const alice = clientAs(ctx, await ctx.jwt('alice', 'Alice'));
    const group = await alice
      .post('/chats', { type: 'group', title: 'Desk', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    const groupId = group.body.data.id as string;
    const heard: string[] = [];
    const helper = new GrammyBot(bot.token, { client: { apiRoot } });
    helper.command('help', (c) => c.reply(`help for ${c.from?.first_name}`));
    helper.on('message:text', (c) => {
      heard.push(c.message.text);
    });
    await whilePolling(helper, async () => {
      expect(helper.botInfo.username).toBe(username);
      await alice.post(`/chats/${groupId}/messages`, { text: 'nobody is asked' }).expect(201);
      await alice.post(`/chats/${groupId}/messages`, { text: `thanks @${username.toUpperCase()}` }).expect(201);
      await alice.post(`/chats/${groupId}/messages`, { text: `/help@${username}` }).expect(201);
      await until(async () => {
        const items = (await alice.get(`/chats/${groupId}/messages`).expect(200)).body.data.items as Array<{
          text: string;
        }>;
        return items.some((m) => m.text === 'help for Alice') ? true : undefined;
      });
      await until(async () => (heard.length > 0 ? true : undefined));
      expect(heard).toEqual([`thanks @${username.toUpperCase()}`]);
    });
  });
});
