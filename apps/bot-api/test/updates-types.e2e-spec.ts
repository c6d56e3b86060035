import request from 'supertest';
import { UPDATE_ID_NAMESPACE, uuidV5 } from '../src/updates/update-id';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  ensureUsers,
  insertFile,
  startBotApp,
} from './app-context';

const ALL_TYPES = [
  'message',
  'edited_message',
  'message_deleted',
  'message_read',
  'message_delivered',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
];

interface Update {
  update_id: string;
  update_seq: number;
  type: string;
  bot_id: string;
  [member: string]: unknown;
}

describe('Update types and payloads (spec 6.1, 6.2)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let jwt: Record<string, string>;
  let offset = 0;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'alpha_bot' });
    jwt = {};
    for (const user of ['alice', 'bob', 'carol', 'dave']) jwt[user] = await ctx.jwt(user, user.toUpperCase());
    await ensureUsers(ctx, 'bob', 'carol', 'dave');
    await callBot(ctx, bot.token, 'getUpdates', { allowed_updates: ALL_TYPES }).expect(200);
  });
  afterAll(() => ctx.close());

  const client = (user: string) => ({
    post: (path: string, body: object = {}) =>
      request(ctx.app.getHttpServer())
        .post(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
    patch: (path: string, body: object = {}) =>
      request(ctx.app.getHttpServer())
        .patch(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
    delete: (path: string, body: object = {}) =>
      request(ctx.app.getHttpServer())
        .delete(`/api/v1/bots/client${path}`)
        .set('Authorization', `Bearer ${jwt[user]}`)
        .send(body),
  });

  /** Everything new for the bot since the last call, confirming what was read before. */
  async function drain(): Promise<Update[]> {
    const res = await callBot(ctx, bot.token, 'getUpdates', { offset }).expect(200);
    const updates = res.body.data as Update[];
    if (updates.length > 0) offset = updates[updates.length - 1].update_seq + 1;
    for (const update of updates) expect(update.bot_id).toBe(bot.botId);
    return updates;
  }

  const botUser = () => ({ id: bot.systemUserId, is_bot: true, username: 'alpha_bot' });
  let groupId: string;
  let privateId: string;

  it('my_chat_member: the bot is added to a new group, then promoted', async () => {
    const created = await client('alice')
      .post('/chats', { type: 'group', title: 'Team', member_ids: ['bob', bot.systemUserId] })
      .expect(201);
    groupId = created.body.data.id;
    const [added] = await drain();
    expect(added).toMatchObject({
      type: 'my_chat_member',
      my_chat_member: {
        chat: { id: groupId, type: 'group', title: 'Team' },
        from: { id: 'alice', is_bot: false },
        date: expect.any(Number),
        old_chat_member: { user: botUser(), status: 'left' },
        new_chat_member: { user: botUser(), status: 'member' },
      },
    });
    await client('alice').patch(`/chats/${groupId}/members/${bot.systemUserId}`, { role: 'administrator' }).expect(200);
    const [promoted] = await drain();
    expect(promoted.type).toBe('my_chat_member');
    expect(promoted.my_chat_member).toMatchObject({
      old_chat_member: { status: 'member' },
      new_chat_member: { status: 'administrator' },
    });
  });

  it('chat_member: another member joins and gets promoted', async () => {
    await client('alice').post(`/chats/${groupId}/members`, { user_id: 'carol' }).expect(200);
    await client('alice').patch(`/chats/${groupId}/members/carol`, { role: 'administrator' }).expect(200);
    const [joined, promoted] = await drain();
    expect(joined).toMatchObject({
      type: 'chat_member',
      chat_member: {
        chat: { id: groupId, type: 'group' },
        from: { id: 'alice' },
        old_chat_member: { user: { id: 'carol', is_bot: false }, status: 'left' },
        new_chat_member: { user: { id: 'carol', is_bot: false }, status: 'member' },
      },
    });
    expect(promoted.chat_member).toMatchObject({ new_chat_member: { status: 'administrator' } });
  });

  it('chat_join_request: a user asks to join a group where the bot is administrator', async () => {
    const asked = await client('dave').post(`/chats/${groupId}/join-requests`).expect(201);
    const [update] = await drain();
    expect(update).toMatchObject({
      type: 'chat_join_request',
      chat_join_request: {
        id: asked.body.data.id,
        chat: { id: groupId, type: 'group' },
        from: { id: 'dave', is_bot: false },
        date: expect.any(Number),
      },
    });
    const again = await client('dave').post(`/chats/${groupId}/join-requests`).expect(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('message and the media type values photo, document, video, audio, location, with deterministic update ids', async () => {
    const opened = await client('alice').post('/chats/private', { bot_id: bot.botId }).expect(201);
    privateId = opened.body.data.id;
    await drain(); // my_chat_member of the new private chat
    const photo = await insertFile(ctx, { userId: 'alice', mimeType: 'image/png', width: 640, height: 480 });
    const pdf = await insertFile(ctx, { userId: 'alice', mimeType: 'application/pdf', fileName: 'a.pdf' });
    const video = await insertFile(ctx, { userId: 'alice', mimeType: 'video/mp4', duration: 12 });
    const audio = await insertFile(ctx, { userId: 'alice', mimeType: 'audio/mpeg', duration: 200 });
    const sent: Array<{ message_id: number }> = [];
    for (const body of [
      { text: 'plain' },
      { file_id: photo, text: 'a photo' },
      { file_id: pdf },
      { file_id: video },
      { file_id: audio },
      { location: { latitude: 52.52, longitude: 13.4 } },
    ]) {
      sent.push((await client('alice').post(`/chats/${privateId}/messages`, body).expect(201)).body.data);
    }
    const updates = await drain();
    expect(updates.map((u) => u.type)).toEqual(['message', 'photo', 'document', 'video', 'audio', 'location']);
    updates.forEach((update, i) => {
      expect(update.update_id).toBe(uuidV5(`${bot.botId}:${sent[i].message_id}:${update.type}`, UPDATE_ID_NAMESPACE));
      expect(update.message).toMatchObject({
        message_id: sent[i].message_id,
        from: { id: 'alice', username: null, is_bot: false },
        chat: { id: privateId, type: 'private', title: null },
        date: expect.any(Number),
      });
    });
    expect(updates[1].message).toMatchObject({
      text: 'a photo',
      file: {
        file_id: photo,
        file_name: 'picture.jpg',
        mime_type: 'image/png',
        file_size: 1024,
        url: expect.stringMatching(/^https?:\/\//),
        thumbnail_url: null,
        width: 640,
        height: 480,
      },
    });
    expect(updates[5].message).toMatchObject({ location: { latitude: 52.52, longitude: 13.4 } });
  });

  it('edited_message and message_deleted for a user edit and deletion', async () => {
    const posted = await client('alice').post(`/chats/${privateId}/messages`, { text: 'typo' }).expect(201);
    const id = posted.body.data.message_id;
    await drain();
    await client('alice').patch(`/chats/${privateId}/messages/${id}`, { text: 'fixed' }).expect(200);
    await client('alice').patch(`/chats/${privateId}/messages/${id}`, { text: 'fixed again' }).expect(200);
    await client('alice').delete(`/chats/${privateId}/messages/${id}`).expect(200);
    const [first, second, deleted] = await drain();
    expect(first).toMatchObject({
      type: 'edited_message',
      message: {
        message_id: id,
        chat: { id: privateId },
        text: 'fixed',
        date: expect.any(Number),
        edit_date: expect.any(Number),
      },
    });
    expect(second).toMatchObject({ type: 'edited_message', message: { text: 'fixed again' } });
    expect(second.update_id).not.toBe(first.update_id);
    expect(deleted).toMatchObject({
      type: 'message_deleted',
      message: { message_id: id, chat: { id: privateId }, date: expect.any(Number) },
    });
  });

  it('message_read and message_delivered only for messages the bot sent, once per reader, also under concurrent receipts', async () => {
    const own = await callBot(ctx, bot.token, 'sendMessage', { chat_id: privateId, text: 'did you see this?' }).expect(
      201,
    );
    const id = own.body.data.message_id;
    await client('alice').post(`/chats/${privateId}/messages/${id}/delivered`).expect(200);
    // Three receipts racing for the same message: the primary key lets exactly one announce itself.
    const reads = await Promise.all(
      [1, 2, 3].map(() => client('alice').post(`/chats/${privateId}/messages/${id}/read`)),
    );
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    const updates = await drain();
    expect(updates).toHaveLength(2);
    expect(updates[0]).toMatchObject({
      type: 'message_delivered',
      message: { message_id: id, chat: { id: privateId, type: 'private' }, date: expect.any(Number) },
    });
    expect(updates[1]).toMatchObject({
      type: 'message_read',
      message: { message_id: id, chat: { id: privateId, type: 'private' }, date: expect.any(Number) },
    });

    const mine = await client('alice').post(`/chats/${groupId}/messages`, { text: 'group note' }).expect(201);
    await client('bob').post(`/chats/${groupId}/messages/${mine.body.data.message_id}/read`).expect(200);
    expect(await drain()).toEqual([]);
  });

  it("edited_message and message_deleted for the bot's own edit and deletion", async () => {
    const own = await callBot(ctx, bot.token, 'sendMessage', { chat_id: privateId, text: 'draft' }).expect(201);
    const id = own.body.data.message_id;
    const edited = await callBot(ctx, bot.token, 'editMessage', {
      chat_id: privateId,
      message_id: id,
      text: 'final',
    }).expect(200);
    expect(edited.body.data).toMatchObject({
      text: 'final',
      metadata: { isEdited: true },
      edit_date: expect.any(Number),
    });
    await callBot(ctx, bot.token, 'deleteMessage', { message_id: id }).expect(200);
    const [editUpdate, deleteUpdate] = await drain();
    expect(editUpdate).toMatchObject({
      type: 'edited_message',
      message: { message_id: id, text: 'final', from: botUser() },
    });
    expect(deleteUpdate).toMatchObject({
      type: 'message_deleted',
      message: { message_id: id, chat: { id: privateId } },
    });
  });

  it('my_chat_member when the bot is removed from the group', async () => {
    await client('alice').delete(`/chats/${groupId}/members`, { user_id: bot.systemUserId }).expect(200);
    const [removed] = await drain();
    expect(removed).toMatchObject({
      type: 'my_chat_member',
      my_chat_member: { old_chat_member: { status: 'administrator' }, new_chat_member: { status: 'kicked' } },
    });
  });

  it('leaves out my_chat_member, chat_member and chat_join_request unless listed in allowed_updates', async () => {
    const plain = await createApprovedBot(ctx, 'dev-2', { username: 'plain_bot' });
    const group = await client('alice')
      .post('/chats', { type: 'group', title: 'Plain', member_ids: [plain.systemUserId] })
      .expect(201);
    await client('alice')
      .patch(`/chats/${group.body.data.id}/members/${plain.systemUserId}`, { role: 'administrator' })
      .expect(200);
    await client('alice').post(`/chats/${group.body.data.id}/members`, { user_id: 'bob' }).expect(200);
    await client('dave').post(`/chats/${group.body.data.id}/join-requests`).expect(201);
    await client('alice').post(`/chats/${group.body.data.id}/messages`, { text: '/start' }).expect(201);
    const res = await callBot(ctx, plain.token, 'getUpdates', {}).expect(200);
    expect(res.body.data.map((u: Update) => u.type)).toEqual(['message']);
  });

  it('gives a bot without the messages:receive scope no Updates at all', async () => {
    const deaf = await createApprovedBot(ctx, 'dev-3', { username: 'deaf_bot', scopes: ['messages:send'] });
    const chat = await client('alice').post('/chats/private', { bot_id: deaf.botId }).expect(201);
    await client('alice').post(`/chats/${chat.body.data.id}/messages`, { text: 'anyone?' }).expect(201);
    const res = await callBot(ctx, deaf.token, 'getUpdates', { allowed_updates: ALL_TYPES }).expect(200);
    expect(res.body.data).toEqual([]);
  });
});
