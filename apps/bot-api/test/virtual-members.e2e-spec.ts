import request from 'supertest';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  clientAs,
  createApprovedBot,
  STAFF_ID,
  startBotApp,
  TestUpdate,
  UpdateReader,
} from './app-context';

describe('Virtual members (spec 4.2 virtual-member rows, 8; decisions 3)', () => {
  let ctx: BotTestContext;
  let speaker: ApprovedBot;
  let listener: ApprovedBot;
  let jwt: Record<string, string>;
  let staff: string;
  let groupId: string;
  let privateId: string;
  let updates: UpdateReader;

  beforeAll(async () => {
    ctx = await startBotApp();
    updates = new UpdateReader(ctx);
    speaker = await createApprovedBot(ctx, 'dev-1', { username: 'speaker_bot' });
    listener = await createApprovedBot(ctx, 'dev-2', { username: 'listener_bot' });
    jwt = {};
    for (const user of ['alice', 'bob', 'carol']) jwt[user] = await ctx.jwt(user, user.toUpperCase());
    staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
    await client('bob').get('/chats/00000000-0000-4000-8000-000000000000/messages');
    await client('carol').get('/chats/00000000-0000-4000-8000-000000000000/messages');
    const group = await client('alice')
      .post('/chats', {
        type: 'group',
        title: 'Hall',
        member_ids: ['bob', speaker.systemUserId, listener.systemUserId],
      })
      .expect(201);
    groupId = group.body.data.id;
    const opened = await client('alice').post('/chats/private', { bot_id: speaker.botId }).expect(201);
    privateId = opened.body.data.id;
    await drain(listener);
    await drain(speaker);
  });
  afterAll(() => ctx.close());

  const client = (user: string) => clientAs(ctx, jwt[user]);
  const drain = (bot: ApprovedBot) => updates.drain(bot);

  const auditLog = (botId: string, query = '') =>
    request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/admin/bots/${botId}/virtual-member-audit${query}`)
      .set('Authorization', staff);

  const setEnabled = (enabled: boolean) =>
    request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/admin/bots/${speaker.botId}`)
      .set('Authorization', staff)
      .send({ virtual_members_enabled: enabled })
      .expect(200);

  let memberId: string;

  it('refuses every call with 403 VIRTUAL_MEMBERS_DISABLED while staff have not enabled the feature', async () => {
    for (const [method, body] of [
      ['createChatVirtualMember', { chat_id: groupId, name: 'Concierge' }],
      ['listChatVirtualMembers', { chat_id: groupId }],
      ['sendAsVirtualMember', { chat_id: groupId, virtual_member_id: 'vmember_00', type: 'text', text: 'hi' }],
    ] as const) {
      const res = await callBot(ctx, speaker.token, method, body);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, code: 'VIRTUAL_MEMBERS_DISABLED' });
    }
    const log = await auditLog(speaker.botId).expect(200);
    expect(
      log.body.data.items.map((e: { action: string; outcome: string; error_code: string }) => [
        e.action,
        e.outcome,
        e.error_code,
      ]),
    ).toEqual([
      ['send', 'refused', 'VIRTUAL_MEMBERS_DISABLED'],
      ['list', 'refused', 'VIRTUAL_MEMBERS_DISABLED'],
      ['create', 'refused', 'VIRTUAL_MEMBERS_DISABLED'],
    ]);
  });

  it('after staff enable them: created in a group, listed, and shown with is_virtual in chat reads', async () => {
    await setEnabled(true);
    const created = await callBot(ctx, speaker.token, 'createChatVirtualMember', {
      chat_id: groupId,
      name: 'Concierge',
    }).expect(201);
    memberId = created.body.data.user.id;
    expect(created.body.data).toEqual({
      user: { id: memberId, is_bot: false, username: null, first_name: 'Concierge', is_virtual: true },
      chat_id: groupId,
      bot_id: speaker.botId,
      created_at: expect.any(String),
    });
    const listed = await callBot(ctx, speaker.token, 'listChatVirtualMembers', { chat_id: groupId }).expect(200);
    expect(listed.body.data).toEqual({ items: [created.body.data], total: 1, page: 1, pageSize: 20 });
    // Another bot of the same group has no virtual members of its own there.
    await setListenerEnabled();
    expect(
      (await callBot(ctx, listener.token, 'listChatVirtualMembers', { chat_id: groupId }).expect(200)).body.data.total,
    ).toBe(0);

    const member = await callBot(ctx, speaker.token, 'getChatMember', { chat_id: groupId, user_id: memberId }).expect(
      200,
    );
    expect(member.body.data).toMatchObject({ user: { id: memberId, is_virtual: true }, status: 'member' });
    const count = await callBot(ctx, speaker.token, 'getChatMemberCount', { chat_id: groupId }).expect(200);
    expect(count.body.data).toBe(5);
    const people = await callBot(ctx, speaker.token, 'getChatMember', { chat_id: groupId, user_id: 'bob' }).expect(200);
    expect(people.body.data.user).not.toHaveProperty('is_virtual');
  });

  async function setListenerEnabled() {
    await request(ctx.app.getHttpServer())
      .patch(`/api/v1/bots/admin/bots/${listener.botId}`)
      .set('Authorization', staff)
      .send({ virtual_members_enabled: true })
      .expect(200);
  }

  it('sends 1000 characters as the member, refuses 1001; others see a normal message from the member', async () => {
    const tooLong = await callBot(ctx, speaker.token, 'sendAsVirtualMember', {
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text: 'x'.repeat(1001),
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('VALIDATION');
    const text = `/menu ${'y'.repeat(994)}`;
    expect(text).toHaveLength(1000);
    const sent = await callBot(ctx, speaker.token, 'sendAsVirtualMember', {
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text,
    }).expect(201);
    expect(sent.body.data).toMatchObject({
      chat: { id: groupId, type: 'group' },
      from: { id: memberId, is_bot: false, first_name: 'Concierge', is_virtual: true },
      text,
    });
    const read = await client('bob').get(`/chats/${groupId}/messages`).expect(200);
    expect(read.body.data.items[0]).toMatchObject({
      message_id: sent.body.data.message_id,
      from: { id: memberId, is_virtual: true },
      text,
    });
    // A command passes group privacy, so the other bot gets it; the speaking bot does not hear itself.
    const heard = await drain(listener);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ type: 'message', message: { from: { id: memberId, is_virtual: true }, text } });
    expect(await drain(speaker)).toEqual([]);
    // Group privacy applies: a plain sentence reaches no bot.
    await callBot(ctx, speaker.token, 'sendAsVirtualMember', {
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text: 'just chatting',
    }).expect(201);
    expect(await drain(listener)).toEqual([]);
  });

  it('admits only text, in groups the bot is in, as its own virtual members; unknown fields rejected', async () => {
    const send = (body: object) => callBot(ctx, speaker.token, 'sendAsVirtualMember', body);
    await send({ chat_id: groupId, virtual_member_id: memberId, type: 'photo', text: 'x' }).expect(400);
    await send({ chat_id: groupId, virtual_member_id: memberId, type: 'text', text: '' }).expect(400);
    await send({
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text: 'x',
      bot_id: listener.botId,
    }).expect(400);
    await callBot(ctx, speaker.token, 'createChatVirtualMember', { chat_id: privateId, name: 'Nope' }).expect(400);
    await callBot(ctx, listener.token, 'sendAsVirtualMember', {
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text: 'not mine',
    }).expect(404);
    const outside = await client('carol').post('/chats', { type: 'group', title: 'Elsewhere' }).expect(201);
    await callBot(ctx, speaker.token, 'createChatVirtualMember', { chat_id: outside.body.data.id, name: 'Spy' }).expect(
      404,
    );
  });

  it('a virtual member id is no user id elsewhere: not added, promoted, or signed in as', async () => {
    const other = await client('alice').post('/chats', { type: 'group', title: 'Other' }).expect(201);
    await client('alice').post(`/chats/${other.body.data.id}/members`, { user_id: memberId }).expect(404);
    await client('alice')
      .post('/chats', { type: 'group', title: 'Third', member_ids: [memberId] })
      .expect(404);
    await client('alice').patch(`/chats/${groupId}/members/${memberId}`, { role: 'administrator' }).expect(404);
    const impostor = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/client/chats/${groupId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt(memberId, 'Impostor')}`);
    expect(impostor.status).toBe(401);
  });

  it('staff read every call, refused ones included, newest first and paginated; others cannot', async () => {
    const log = await auditLog(speaker.botId, '?pageSize=100').expect(200);
    const entries = log.body.data.items as Array<Record<string, unknown>>;
    expect(log.body.data.total).toBe(entries.length);
    const summary = entries.map((e) => `${e.action}:${e.outcome}:${e.error_code ?? ''}`);
    expect(summary.slice(0, 9)).toEqual([
      'create:refused:NOT_FOUND',
      'create:refused:VALIDATION',
      'send:refused:VALIDATION',
      'send:refused:VALIDATION',
      'send:refused:VALIDATION',
      'send:succeeded:',
      'send:succeeded:',
      'send:refused:VALIDATION',
      'list:succeeded:',
    ]);
    const tooLong = entries[7];
    expect(tooLong.request).toMatchObject({
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text_length: 1001,
    });
    expect(entries[6]).toMatchObject({ chat_id: groupId, virtual_member_id: memberId, message_id: expect.any(Number) });
    expect(entries[2].request).toMatchObject({ unknown_fields: ['bot_id'] });
    const page2 = await auditLog(speaker.botId, '?page=2&pageSize=2').expect(200);
    expect(page2.body.data.items).toEqual(entries.slice(2, 4));
    // The listener's refused send is in its own log, not the speaker's.
    const listenerLog = await auditLog(listener.botId).expect(200);
    expect(listenerLog.body.data.items[0]).toMatchObject({
      action: 'send',
      outcome: 'refused',
      error_code: 'NOT_FOUND',
    });

    const developer = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/admin/bots/${speaker.botId}/virtual-member-audit`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-1')}`);
    expect(developer.status).toBe(403);
    await auditLog('ffffffffffffffffffffffff').expect(404);
  });

  it('switched off again, the feature refuses at once', async () => {
    await setEnabled(false);
    const res = await callBot(ctx, speaker.token, 'sendAsVirtualMember', {
      chat_id: groupId,
      virtual_member_id: memberId,
      type: 'text',
      text: 'still here?',
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('VIRTUAL_MEMBERS_DISABLED');
  });
});

describe('Virtual-member calls refused before the method runs', () => {
  it('are audited too: the route limit (429) and a disabled bot (403 BOT_NOT_AVAILABLE); a bad token names no bot', async () => {
    const ctx = await startBotApp({ RATE_LIMITS: 'bot=2' });
    try {
      const bot = await createApprovedBot(ctx, 'dev-7', { username: 'limited_bot' });
      const staff = `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`;
      const admin = (body: object) =>
        request(ctx.app.getHttpServer())
          .patch(`/api/v1/bots/admin/bots/${bot.botId}`)
          .set('Authorization', staff)
          .send(body)
          .expect(200);
      await admin({ virtual_members_enabled: true });
      const group = await request(ctx.app.getHttpServer())
        .post('/api/v1/bots/client/chats')
        .set('Authorization', `Bearer ${await ctx.jwt('owner-7')}`)
        .send({ type: 'group', title: 'Limited', member_ids: [bot.systemUserId] })
        .expect(201);
      const create = (token: string) =>
        callBot(ctx, token, 'createChatVirtualMember', { chat_id: group.body.data.id, name: 'Greeter' });
      await create(bot.token).expect(201);
      await create(bot.token).expect(201);
      const limited = await create(bot.token);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      await admin({ status: 'disabled' });
      const disabled = await create(bot.token);
      expect(disabled.status).toBe(403);
      expect(disabled.body.code).toBe('BOT_NOT_AVAILABLE');
      await create('sbot_not_a_real_token_at_all_0000000000000000000').expect(401);

      const log = await request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/admin/bots/${bot.botId}/virtual-member-audit`)
        .set('Authorization', staff)
        .expect(200);
      expect(
        log.body.data.items.map((e: { outcome: string; error_code: string | null }) => [e.outcome, e.error_code]),
      ).toEqual([
        ['refused', 'BOT_NOT_AVAILABLE'],
        ['refused', 'RATE_LIMITED'],
        ['succeeded', null],
        ['succeeded', null],
      ]);
      expect(log.body.data.items[0].request).toEqual({ chat_id: group.body.data.id, name: 'Greeter' });
    } finally {
      await ctx.close();
    }
  });
});
