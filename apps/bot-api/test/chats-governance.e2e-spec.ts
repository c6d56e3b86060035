import request from 'supertest';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, ensureUsers, startBotApp } from './app-context';

describe('chat reads and governance for bots (spec 4.2)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let alice: string;
  let chatId: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'mod_bot' });
    alice = await ctx.jwt('alice', 'Alice');
    await ensureUsers(ctx, 'bob', 'carol', 'dave');
    const group = await client('post', '/chats', {
      type: 'group',
      title: 'Club',
      member_ids: ['bob', 'carol', bot.systemUserId],
    }).expect(201);
    chatId = group.body.data.id;
  });
  afterAll(() => ctx.close());

  function client(method: 'post' | 'patch' | 'get', path: string, body?: object, token?: string) {
    const req = request(ctx.app.getHttpServer())
      [method](`/api/v1/bots/client${path}`)
      .set('Authorization', `Bearer ${token ?? alice}`);
    return body ? req.send(body) : req;
  }
  const call = (method: string, body: object) => callBot(ctx, bot.token, method, { chat_id: chatId, ...body });

  it('refuses governance to a bot that is a plain member with 403 FORBIDDEN, reads still work', async () => {
    for (const [method, body] of [
      ['setChatTitle', { title: 'Hijacked' }],
      ['setChatDescription', { description: 'x' }],
      ['setChatPhoto', { photo: 'https://example.com/a.png' }],
      ['unpinAllChatMessages', {}],
      ['kickChatMember', { user_id: 'bob' }],
      ['banChatMember', { user_id: 'bob' }],
      ['unbanChatMember', { user_id: 'bob' }],
    ] as const) {
      const res = await call(method, body);
      expect([method, res.status, res.body.code]).toEqual([method, 403, 'FORBIDDEN']);
    }
    const chat = await call('getChat', {}).expect(200);
    expect(chat.body.data).toMatchObject({ id: chatId, type: 'group', title: 'Club' });
  });

  it('answers chat reads over GET and POST; administrators include the owner; bots count as members', async () => {
    await client('patch', `/chats/${chatId}/members/${bot.systemUserId}`, { role: 'administrator' }).expect(200);
    const viaGet = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/getChatMemberCount?chat_id=${chatId}`)
      .set('Authorization', `Bearer ${bot.token}`)
      .expect(200);
    expect(viaGet.body.data).toBe(4);
    const admins = await call('getChatAdministrators', {}).expect(200);
    expect(admins.body.data.map((m: { user: { id: string }; status: string }) => [m.user.id, m.status])).toEqual([
      ['alice', 'owner'],
      [bot.systemUserId, 'administrator'],
    ]);
    const member = await call('getChatMember', { user_id: 'bob' }).expect(200);
    expect(member.body.data).toMatchObject({ user: { id: 'bob', is_bot: false }, status: 'member' });
    const outsider = await call('getChatMember', { user_id: 'dave' }).expect(200);
    expect(outsider.body.data).toMatchObject({ user: { id: 'dave' }, status: 'left' });
  });

  it('answers getChat, getChatMember and getChatAdministrators over GET with query parameters as over POST', async () => {
    const get = (method: string, query: string) =>
      request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/${method}?chat_id=${chatId}${query}`)
        .set('Authorization', `Bearer ${bot.token}`)
        .expect(200);
    for (const [method, query, body] of [
      ['getChat', '', {}],
      ['getChatMember', '&user_id=bob', { user_id: 'bob' }],
      ['getChatAdministrators', '', {}],
    ] as const) {
      const [viaGet, viaPost] = [await get(method, query), await call(method, body).expect(200)];
      expect([method, viaGet.body.data]).toEqual([method, viaPost.body.data]);
    }
  });

  it('sets title, description and photo as administrator; the photo must be an HTTPS URL', async () => {
    await call('setChatTitle', { title: 'Club 2' }).expect(200);
    await call('setChatDescription', { description: 'Weekly meetings' }).expect(200);
    await call('setChatPhoto', { photo: 'https://cdn.example.com/club.png' }).expect(200);
    expect((await call('setChatPhoto', { photo: 'http://cdn.example.com/club.png' }).expect(400)).body.code).toBe(
      'VALIDATION',
    );
    const chat = await call('getChat', {}).expect(200);
    expect(chat.body.data).toMatchObject({
      title: 'Club 2',
      description: 'Weekly meetings',
      photo_url: 'https://cdn.example.com/club.png',
    });
  });

  it('pins and unpins messages; getChat returns pinned_message_id', async () => {
    const first = await call('sendMessage', { text: 'rules' }).expect(201);
    const second = await call('sendMessage', { text: 'agenda' }).expect(201);
    await call('pinChatMessage', { message_id: first.body.data.message_id }).expect(200);
    expect((await call('getChat', {})).body.data.pinned_message_id).toBe(first.body.data.message_id);
    await call('unpinChatMessage', { message_id: second.body.data.message_id }).expect(200);
    expect((await call('getChat', {})).body.data.pinned_message_id).toBe(first.body.data.message_id);
    await call('unpinChatMessage', { message_id: first.body.data.message_id }).expect(200);
    expect((await call('getChat', {})).body.data.pinned_message_id).toBeNull();
    await call('pinChatMessage', { message_id: second.body.data.message_id }).expect(200);
    await call('unpinAllChatMessages', {}).expect(200);
    expect((await call('getChat', {})).body.data.pinned_message_id).toBeNull();
    expect((await call('pinChatMessage', { message_id: 99999999 }).expect(404)).body.code).toBe('NOT_FOUND');
  });

  it('kicks without blacklisting: the user may ask to join again', async () => {
    const res = await call('kickChatMember', { user_id: 'bob' }).expect(200);
    expect(res.body).toEqual({ success: true, data: true });
    expect((await call('getChatMember', { user_id: 'bob' })).body.data.status).toBe('kicked');
    await client('post', `/chats/${chatId}/join-requests`, {}, await ctx.jwt('bob')).expect(201);
  });

  it('bans and blacklists with a reason; unban lifts it without adding the user back', async () => {
    await call('banChatMember', { user_id: 'carol', reason: 'spam' }).expect(200);
    expect((await call('getChatMember', { user_id: 'carol' })).body.data).toMatchObject({
      status: 'banned',
      ban_reason: 'spam',
    });
    const carol = await ctx.jwt('carol');
    expect((await client('post', `/chats/${chatId}/join-requests`, {}, carol).expect(403)).body.code).toBe('FORBIDDEN');
    expect((await client('post', `/chats/${chatId}/members`, { user_id: 'carol' }).expect(409)).body.code).toBe(
      'CONFLICT',
    );
    expect((await client('get', `/chats/${chatId}/messages`, undefined, carol).expect(404)).body.code).toBe(
      'NOT_FOUND',
    );
    const before = (await call('getChatMemberCount', {})).body.data;
    await call('unbanChatMember', { user_id: 'carol' }).expect(200);
    expect((await call('getChatMember', { user_id: 'carol' })).body.data.status).toBe('left');
    expect((await call('getChatMemberCount', {})).body.data).toBe(before);
    await client('post', `/chats/${chatId}/members`, { user_id: 'carol' }).expect(200);
  });

  it('approves and declines join requests: approval makes the user a member, a second answer finds nothing', async () => {
    const dave = await ctx.jwt('dave');
    await client('post', `/chats/${chatId}/join-requests`, {}, dave).expect(201);
    await call('approveChatJoinRequest', { user_id: 'dave' }).expect(200);
    expect((await call('getChatMember', { user_id: 'dave' })).body.data.status).toBe('member');
    expect((await call('approveChatJoinRequest', { user_id: 'dave' }).expect(404)).body.code).toBe('NOT_FOUND');

    await call('kickChatMember', { user_id: 'dave' }).expect(200);
    await client('post', `/chats/${chatId}/join-requests`, {}, dave).expect(201);
    await call('declineChatJoinRequest', { user_id: 'dave' }).expect(200);
    expect((await call('getChatMember', { user_id: 'dave' })).body.data.status).toBe('kicked');
  });

  it('never removes the owner, and an administrator bot cannot remove another administrator', async () => {
    expect((await call('kickChatMember', { user_id: 'alice' }).expect(403)).body.code).toBe('FORBIDDEN');
    await client('patch', `/chats/${chatId}/members/carol`, { role: 'administrator' }).expect(200);
    expect((await call('banChatMember', { user_id: 'carol' }).expect(403)).body.code).toBe('FORBIDDEN');
  });

  it('answers 404 NOT_FOUND to a bot that is not an active member of the chat', async () => {
    const outsider = await createApprovedBot(ctx, 'dev-2', { username: 'outside_bot' });
    for (const [method, extra] of [
      ['getChat', {}],
      ['getChatMemberCount', {}],
      ['getChatAdministrators', {}],
      ['setChatTitle', { title: 'x' }],
    ] as const) {
      const res = await callBot(ctx, outsider.token, method, { chat_id: chatId, ...extra });
      expect([method, res.status, res.body.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    const bogus = await callBot(ctx, outsider.token, 'getChat', { chat_id: 'not-a-chat' }).expect(404);
    expect(bogus.body).toEqual({ success: false, code: 'NOT_FOUND', message: expect.any(String) });
  });
});
