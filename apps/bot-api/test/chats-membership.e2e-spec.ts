import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

describe('client chat routes: groups, private chats, members, join requests', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  const jwt: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'member_bot' });
    for (const user of ['alice', 'bob', 'carol', 'dave']) jwt[user] = await ctx.jwt(user, user);
    await ensureUsers(ctx, 'bob', 'carol', 'dave');
  });
  afterAll(() => ctx.close());

  const as = (user: string) => ({
    post: (path: string, body: object = {}) =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
    patch: (path: string, body: object) =>
      request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
    delete: (path: string, body: object) =>
      request(ctx.app.getHttpServer())
        .delete(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
  });

  async function newGroup(members: string[] = ['bob']): Promise<string> {
    const res = await as('alice').post('/chats', { type: 'group', title: 'G', member_ids: members }).expect(201);
    return res.body.data.id;
  }

  it('creates a group with the caller as owner and the listed members', async () => {
    const res = await as('alice')
      .post('/chats', { type: 'group', title: 'Book club', member_ids: ['bob', 'bob', 'alice'] })
      .expect(201);
    expect(res.body.data).toMatchObject({ type: 'group', title: 'Book club', pinned_message_id: null });
    expect(res.body.data.members.map((m: { user: { id: string }; status: string }) => [m.user.id, m.status])).toEqual([
      ['alice', 'owner'],
      ['bob', 'member'],
    ]);
  });

  it('refuses a group with unknown members (404), a wrong type or no title (400)', async () => {
    expect(
      (
        await as('alice')
          .post('/chats', { type: 'group', title: 'x', member_ids: ['ghost'] })
          .expect(404)
      ).body.code,
    ).toBe('NOT_FOUND');
    expect(
      (await as('alice').post('/chats', { type: 'private', title: 'x', member_ids: [] }).expect(400)).body.code,
    ).toBe('VALIDATION');
    expect((await as('alice').post('/chats', { type: 'group', member_ids: [] }).expect(400)).body.code).toBe(
      'VALIDATION',
    );
  });

  it('opens a private chat only with an available bot and, in manual mode, an accepted friend request', async () => {
    await as('alice')
      .post('/chats/private', { bot_id: 'f'.repeat(24) })
      .expect(404);
    expect((await as('alice').post('/chats/private', { bot_id: 'nope' }).expect(400)).body.code).toBe('VALIDATION');

    const picky = await createApprovedBot(ctx, 'dev-2', { username: 'picky_bot' });
    await callBot(ctx, picky.token, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    const refused = await as('carol').post('/chats/private', { bot_id: picky.botId }).expect(403);
    expect(refused.body).toEqual({ success: false, code: 'FORBIDDEN', message: expect.any(String) });

    const asked = await as('carol').post(`/bots/${picky.botId}/friend-requests`, { message: 'hi' }).expect(201);
    await callBot(ctx, picky.token, 'answerFriendRequest', { request_id: asked.body.data.id, accept: true }).expect(
      200,
    );
    const opened = await as('carol').post('/chats/private', { bot_id: picky.botId }).expect(201);
    expect(opened.body.data).toMatchObject({ type: 'private', bot_id: picky.botId });
  });

  it('opens exactly one private chat when the same user opens it concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => as('dave').post('/chats/private', { bot_id: bot.botId })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
  });

  it('lets only the owner or an administrator add members; a member already there gives 409', async () => {
    const chat = await newGroup();
    expect((await as('bob').post(`/chats/${chat}/members`, { user_id: 'carol' }).expect(403)).body.code).toBe(
      'FORBIDDEN',
    );
    await as('alice').patch(`/chats/${chat}/members/bob`, { role: 'administrator' }).expect(200);
    const added = await as('bob').post(`/chats/${chat}/members`, { user_id: 'carol' }).expect(200);
    expect(added.body.data).toMatchObject({ user: { id: 'carol' }, status: 'member' });
    expect((await as('alice').post(`/chats/${chat}/members`, { user_id: 'carol' }).expect(409)).body.code).toBe(
      'CONFLICT',
    );
    expect((await as('alice').post(`/chats/${chat}/members`, { user_id: 'ghost' }).expect(404)).body.code).toBe(
      'NOT_FOUND',
    );
    expect((await as('dave').post(`/chats/${chat}/members`, { user_id: 'dave' }).expect(404)).body.code).toBe(
      'NOT_FOUND',
    );
  });

  it('adds a member once when two administrators add the same user at the same time', async () => {
    const chat = await newGroup();
    await as('alice').patch(`/chats/${chat}/members/bob`, { role: 'administrator' }).expect(200);
    const [a, b] = await Promise.all([
      as('alice').post(`/chats/${chat}/members`, { user_id: 'dave' }),
      as('bob').post(`/chats/${chat}/members`, { user_id: 'dave' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
  });

  it('removes members by rank: members leave themselves, administrators remove members, only the owner removes administrators', async () => {
    const chat = await newGroup(['bob', 'carol', 'dave']);
    await as('alice').patch(`/chats/${chat}/members/bob`, { role: 'administrator' }).expect(200);
    await as('alice').patch(`/chats/${chat}/members/carol`, { role: 'administrator' }).expect(200);
    expect((await as('dave').delete(`/chats/${chat}/members`, { user_id: 'bob' }).expect(403)).body.code).toBe(
      'FORBIDDEN',
    );
    expect((await as('bob').delete(`/chats/${chat}/members`, { user_id: 'carol' }).expect(403)).body.code).toBe(
      'FORBIDDEN',
    );
    expect((await as('bob').delete(`/chats/${chat}/members`, { user_id: 'alice' }).expect(403)).body.code).toBe(
      'FORBIDDEN',
    );
    const kicked = await as('bob').delete(`/chats/${chat}/members`, { user_id: 'dave' }).expect(200);
    expect(kicked.body.data.status).toBe('kicked');
    const left = await as('carol').delete(`/chats/${chat}/members`, { user_id: 'carol' }).expect(200);
    expect(left.body.data.status).toBe('left');
    await as('alice').delete(`/chats/${chat}/members`, { user_id: 'bob' }).expect(200);
    expect((await as('alice').delete(`/chats/${chat}/members`, { user_id: 'alice' }).expect(403)).body.code).toBe(
      'FORBIDDEN',
    );
  });

  it('changes ranks by the owner only and never the owner rank', async () => {
    const chat = await newGroup(['bob', 'carol']);
    await as('alice').patch(`/chats/${chat}/members/bob`, { role: 'administrator' }).expect(200);
    expect(
      (await as('bob').patch(`/chats/${chat}/members/carol`, { role: 'administrator' }).expect(403)).body.code,
    ).toBe('FORBIDDEN');
    expect((await as('alice').patch(`/chats/${chat}/members/alice`, { role: 'member' }).expect(400)).body.code).toBe(
      'VALIDATION',
    );
    expect((await as('alice').patch(`/chats/${chat}/members/carol`, { role: 'owner' }).expect(400)).body.code).toBe(
      'VALIDATION',
    );
  });

  it('takes join requests from non-members of groups only', async () => {
    const chat = await newGroup();
    const asked = await as('carol').post(`/chats/${chat}/join-requests`).expect(201);
    expect(asked.body.data).toMatchObject({ chat_id: chat, user_id: 'carol', status: 'pending' });
    expect((await as('bob').post(`/chats/${chat}/join-requests`).expect(409)).body.code).toBe('CONFLICT');
    const priv = await as('alice').post('/chats/private', { bot_id: bot.botId });
    expect((await as('carol').post(`/chats/${priv.body.data.id}/join-requests`).expect(404)).body.code).toBe(
      'NOT_FOUND',
    );
    await as('alice').post(`/chats/${chat}/members`, { user_id: 'carol' }).expect(200);
    await as('alice').delete(`/chats/${chat}/members`, { user_id: 'carol' }).expect(200);
    await as('carol').post(`/chats/${chat}/join-requests`).expect(201);
  });
});
