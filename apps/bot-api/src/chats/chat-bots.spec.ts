import { db } from '@app/bot-schema';
import { Database, execute, executeFirst, poolConfig } from '@app/platform';
import { createTestDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { sql } from 'kysely';
import { Pool } from 'pg';
import { botMigrations } from '../database/migrations';
import { chatBotsJson, ChatsStore, toChatBot } from './chats.store';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);
const C = 'c'.repeat(24);
const D = 'd'.repeat(24);

/** Bots by id (inserted out of order): whether they are available, and their rank in the chat. */
const BOTS = [
  { id: B, available: true, rank: 'administrator' },
  { id: A, available: true, rank: 'member' },
  { id: C, available: false, rank: 'member' },
  { id: D, available: true, rank: 'member' },
] as const;

describe("the available bots among a chat's active members", () => {
  let test: TestDatabase;
  let database: Database;
  let chatId: string;
  const store = () => new ChatsStore(database);

  beforeAll(async () => {
    test = await createTestDatabase('bot', botMigrations);
    database = new Database(new Pool(poolConfig(testDatabaseSettings(test.name, 2))), 'named');
    await execute(database, db.insertInto('users').values({ id: 'person', name: 'Person' }));
    for (const bot of BOTS) {
      const systemUserId = `${bot.id}-user`;
      await execute(database, db.insertInto('users').values({ id: systemUserId, name: bot.id, is_bot: true }));
      await execute(
        database,
        db.insertInto('bots').values({
          id: bot.id,
          name: bot.id,
          owner_id: 'developer',
          system_user_id: systemUserId,
          review_status: 'approved',
          status: bot.available ? 'enabled' : 'disabled',
        }),
      );
      await execute(database, db.insertInto('bot_delivery_settings').values({ bot_id: bot.id }));
    }
    const chat = await store().createGroup(database, 'Group', 'person');
    chatId = chat.id;
    await store().addMembers(database, chatId, [
      { userId: 'person', rank: 'owner' },
      ...BOTS.map((bot) => ({ userId: `${bot.id}-user`, rank: bot.rank })),
    ]);
    await execute(database, db.updateTable('chat_members').set({ state: 'left' }).where('user_id', '=', `${D}-user`));
  });

  afterAll(async () => {
    await database?.end();
    await test?.drop();
  });

  it('are the approved, enabled bots with an active membership, ordered by bot id, with their rank', async () => {
    const bots = await store().botsInChat(database, chatId);
    expect(bots.map((bot) => [bot.id, bot.systemUserId, bot.rank, bot.allowedUpdates])).toEqual([
      [A, `${A}-user`, 'member', null],
      [B, `${B}-user`, 'administrator', null],
    ]);
  });

  it('read as one JSON array by the typed subquery, the same bots as botsInChat', async () => {
    const typed = await executeFirst(database, db.selectNoFrom(chatBotsJson(sql.val(chatId)).as('bots')));
    const bots = await store().botsInChat(database, chatId);
    expect((typed?.bots ?? []).map(toChatBot)).toEqual(bots);
    expect((typed?.bots ?? []).map((bot) => bot.id)).toEqual([A, B]);
  });

  it('is one bot for its own system user, a member by default where it has no membership', async () => {
    const elsewhere = await store().createGroup(database, 'Other', 'person');
    expect(await store().botOfUser(database, `${B}-user`, chatId)).toMatchObject({
      id: B,
      rank: 'administrator',
    });
    expect(await store().botOfUser(database, `${B}-user`, elsewhere.id)).toMatchObject({
      id: B,
      rank: 'member',
    });
    expect(await store().botOfUser(database, `${C}-user`, chatId)).toBeNull();
    expect(await store().botOfUser(database, 'person', chatId)).toBeNull();
  });
});
