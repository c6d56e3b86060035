import request from 'supertest';
import { DataSource } from 'typeorm';
import { FriendsService } from '../src/friends/friends.service';
import { ApprovedBot, BotTestContext, createApprovedBot, STAFF_ID, startBotApp, submitBot } from './app-context';

describe('friend requests', () => {
  let ctx: BotTestContext;
  let server: ReturnType<BotTestContext['app']['getHttpServer']>;

  beforeAll(async () => {
    ctx = await startBotApp();
    server = ctx.app.getHttpServer();
  });
  afterAll(() => ctx.close());

  const botCall = (bot: ApprovedBot, method: string, body: object = {}) =>
    request(server).post(`/api/v1/bots/${method}`).set('Authorization', `Bearer ${bot.token}`).send(body);
  const sendRequest = async (userId: string, botId: string, message?: string) =>
    request(server)
      .post(`/api/v1/bots/client/bots/${botId}/friend-requests`)
      .set('Authorization', `Bearer ${await ctx.jwt(userId, `User ${userId}`)}`)
      .send(message === undefined ? {} : { message });
  const expectStatus = (res: request.Response, status: number) => {
    expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
    return res;
  };
  const friendRequestUpdates = (botId: string) =>
    ctx.app
      .get(DataSource)
      .query(`SELECT payload FROM updates WHERE bot_id = $1 AND type = 'friend_request' ORDER BY update_seq`, [botId]);
  const canChat = async (bot: ApprovedBot, userId: string) => {
    const dataSource = ctx.app.get(DataSource);
    const [row] = await dataSource.query(`SELECT friend_request_mode FROM bots WHERE id = $1`, [bot.botId]);
    return ctx.app
      .get(FriendsService)
      .canChat(dataSource.manager, { id: bot.botId, friendRequestMode: row.friend_request_mode }, userId);
  };

  it('starts in auto_accept mode and accepts a request at once without an Update', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    expect((await botCall(bot, 'getMyFriendRequestMode').expect(200)).body.data).toEqual({
      friend_request_mode: 'auto_accept',
    });
    const viaGet = await request(server)
      .get('/api/v1/bots/getMyFriendRequestMode')
      .set('Authorization', `Bearer ${bot.token}`)
      .expect(200);
    expect(viaGet.body.data).toEqual({ friend_request_mode: 'auto_accept' });

    const res = expectStatus(await sendRequest('u-auto', bot.botId, 'hi'), 201);
    expect(res.body.data).toMatchObject({
      bot_id: bot.botId,
      status: 'accepted',
      request_message: 'hi',
      from: { id: 'u-auto' },
    });
    expect(await friendRequestUpdates(bot.botId)).toEqual([]);
    const again = expectStatus(await sendRequest('u-auto', bot.botId), 409);
    expect(again.body).toEqual({ success: false, code: 'CONFLICT', message: expect.any(String) });
  });

  it('rejects at once in auto_reject mode and leaves no relation', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    expect(
      (await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'auto_reject' }).expect(200)).body.data,
    ).toBe(true);
    const res = expectStatus(await sendRequest('u-rej', bot.botId), 201);
    expect(res.body.data.status).toBe('rejected');
    expect(await canChat(bot, 'u-rej')).toBe(false);
    expect(await friendRequestUpdates(bot.botId)).toEqual([]);
  });

  it('in manual mode keeps the request pending, emits a friend_request Update, and acceptance makes the relation effective', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    const sent = expectStatus(await sendRequest('u-man', bot.botId, 'please add me'), 201);
    expect(sent.body.data.status).toBe('pending');
    expect(await canChat(bot, 'u-man')).toBe(false);

    const updates = await friendRequestUpdates(bot.botId);
    expect(updates).toHaveLength(1);
    expect(updates[0].payload).toEqual({
      update_id: expect.any(String),
      type: 'friend_request',
      bot_id: bot.botId,
      friend_request: {
        id: sent.body.data.id,
        from: { id: 'u-man', name: 'User u-man', username: null, is_bot: false },
        request_message: 'please add me',
        source: 'client',
        date: expect.any(Number),
      },
    });

    const pending = await botCall(bot, 'getFriendRequests').expect(200);
    expect(pending.body.data).toMatchObject({ total: 1, items: [{ id: sent.body.data.id, status: 'pending' }] });
    const viaGet = await request(server)
      .get('/api/v1/bots/getFriendRequests?page=1&pageSize=10')
      .set('Authorization', `Bearer ${bot.token}`);
    expect(viaGet.body.data.total).toBe(1);

    const answered = await botCall(bot, 'answerFriendRequest', { request_id: sent.body.data.id, accept: true }).expect(
      200,
    );
    expect(answered.body.data).toMatchObject({
      id: sent.body.data.id,
      status: 'accepted',
      answered_at: expect.any(String),
    });
    expect(await canChat(bot, 'u-man')).toBe(true);
    expect((await botCall(bot, 'getFriendRequests').expect(200)).body.data.total).toBe(0);

    const twice = await botCall(bot, 'answerFriendRequest', { request_id: sent.body.data.id, accept: false }).expect(
      409,
    );
    expect(twice.body.code).toBe('CONFLICT');
  });

  it('rejecting by hand leaves no relation and lets the user ask again', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    const sent = expectStatus(await sendRequest('u-no', bot.botId), 201);
    const dup = expectStatus(await sendRequest('u-no', bot.botId), 409);
    expect(dup.body.code).toBe('CONFLICT');
    await botCall(bot, 'answerFriendRequest', { request_id: sent.body.data.id, accept: false }).expect(200);
    expect(await canChat(bot, 'u-no')).toBe(false);
    expectStatus(await sendRequest('u-no', bot.botId), 201);
  });

  it('keeps one pending request per user under parallel sends', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    const results = await Promise.all([1, 2, 3].map(() => sendRequest('u-race', bot.botId)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await friendRequestUpdates(bot.botId)).toHaveLength(1);
  });

  it('answers getFriendRequests and answerFriendRequest outside manual mode with 409 CONFLICT', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    const list = await botCall(bot, 'getFriendRequests').expect(409);
    expect(list.body).toEqual({ success: false, code: 'CONFLICT', message: expect.any(String) });
    const answer = await botCall(bot, 'answerFriendRequest', {
      request_id: '00000000-0000-4000-8000-000000000000',
      accept: true,
    }).expect(409);
    expect(answer.body.code).toBe('CONFLICT');
  });

  it("answers 404 for an unknown request id or another bot's request, and 400 for a malformed one", async () => {
    const [mine, theirs] = await Promise.all([createApprovedBot(ctx, 'dev'), createApprovedBot(ctx, 'dev')]);
    await botCall(mine, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    await botCall(theirs, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    const foreign = expectStatus(await sendRequest('u-x', theirs.botId), 201);
    const res = await botCall(mine, 'answerFriendRequest', { request_id: foreign.body.data.id, accept: true }).expect(
      404,
    );
    expect(res.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
    await botCall(mine, 'answerFriendRequest', {
      request_id: '00000000-0000-4000-8000-000000000000',
      accept: true,
    }).expect(404);
    expect(
      (await botCall(mine, 'answerFriendRequest', { request_id: 'nope', accept: true }).expect(400)).body.code,
    ).toBe('VALIDATION');
    expect(
      (await botCall(mine, 'answerFriendRequest', { request_id: foreign.body.data.id }).expect(400)).body.code,
    ).toBe('VALIDATION');
    expect(
      (await botCall(mine, 'setMyFriendRequestMode', { friend_request_mode: 'sometimes' }).expect(400)).body.code,
    ).toBe('VALIDATION');
  });

  it('settles waiting requests when the mode leaves manual: auto_accept accepts them', async () => {
    const bot = await createApprovedBot(ctx, 'dev');
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    expectStatus(await sendRequest('u-s1', bot.botId), 201);
    expectStatus(await sendRequest('u-s2', bot.botId), 201);
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'auto_accept' }).expect(200);
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    expect(await canChat(bot, 'u-s1')).toBe(true);
    expect(await canChat(bot, 'u-s2')).toBe(true);
    expect((await botCall(bot, 'getFriendRequests').expect(200)).body.data.total).toBe(0);
  });

  it('answers 404 for a request to an unknown, pending or disabled bot', async () => {
    const pending = await submitBot(ctx, 'dev');
    const disabled = await createApprovedBot(ctx, 'dev');
    const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
    await request(server)
      .patch(`/api/v1/bots/admin/bots/${disabled.botId}`)
      .set('Authorization', staff)
      .send({ status: 'disabled' })
      .expect(200);
    for (const botId of ['ffffffffffffffffffffffff', pending, disabled.botId]) {
      const res = expectStatus(await sendRequest('u-404', botId), 404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    await request(server).post(`/api/v1/bots/client/bots/${disabled.botId}/friend-requests`).send({}).expect(401);
    expect((await sendRequest('u-long', disabled.botId, 'm'.repeat(501))).status).toBe(400);
  });

  it('emits no friend_request Update to a bot without messages:receive', async () => {
    const bot = await createApprovedBot(ctx, 'dev', { scopes: ['messages:send'] });
    await botCall(bot, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    expectStatus(await sendRequest('u-quiet', bot.botId), 201);
    expect(await friendRequestUpdates(bot.botId)).toEqual([]);
    expect((await botCall(bot, 'getFriendRequests').expect(200)).body.data.total).toBe(1);
  });
});
