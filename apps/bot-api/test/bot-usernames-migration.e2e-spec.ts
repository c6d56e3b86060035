import { createEmptyDatabase, testDataSource, TestDatabase } from '@app/testing';
import { DataSource } from 'typeorm';
import { usernameCandidates } from '../src/bots/generated-username';
import { botMigrations } from '../src/database/migrations';
import { GeneratedBotUsernames1796300000000 } from '../src/database/migrations/1796300000000-GeneratedBotUsernames';

const id = (n: number) => n.toString(16).padStart(24, '0');

interface Seed {
  id: string;
  name: string;
  username?: string;
  review: 'approved' | 'pending' | 'rejected';
}

/** Approved bots of an earlier release, left without a username when they applied without one. */
const SEEDS: Seed[] = [
  { id: id(1), name: 'Gadget', username: 'Gadget_Bot', review: 'approved' },
  { id: id(2), name: 'Gadget', review: 'approved' },
  { id: id(3), name: 'Latte Bot', review: 'approved' },
  { id: id(4), name: 'Latte Bot', review: 'approved' },
  { id: id(5), name: 'Crème Brûlée', review: 'approved' },
  { id: id(6), name: 'Погода', review: 'approved' },
  { id: id(7), name: 'Waiting', review: 'pending' },
  { id: id(8), name: 'Refused', review: 'rejected' },
];

describe('usernames for approved bots that applied without one, given by a migration', () => {
  const position = botMigrations.indexOf(GeneratedBotUsernames1796300000000);
  let database: TestDatabase;
  let dataSource: DataSource;

  const usernames = async (): Promise<Record<string, { bot: string | null; user: string | null }>> => {
    const rows: Array<{ id: string; bot: string | null; user: string | null }> = await dataSource.query(
      `SELECT b.id, b.username AS bot, u.username AS user FROM bots b LEFT JOIN users u ON u.id = b.system_user_id`,
    );
    return Object.fromEntries(rows.map((row) => [row.id, { bot: row.bot, user: row.user }]));
  };

  beforeAll(async () => {
    database = await createEmptyDatabase('bot_usernames');
    dataSource = testDataSource(database.name, botMigrations.slice(0, position));
    await dataSource.initialize();
    await dataSource.runMigrations();
    for (const seed of SEEDS) {
      const systemUser = seed.review === 'approved' ? `bot_${seed.id}` : null;
      if (systemUser) {
        await dataSource.query(`INSERT INTO users (id, name, is_bot, username) VALUES ($1, $2, true, $3)`, [
          systemUser,
          seed.name,
          seed.username ?? null,
        ]);
      }
      await dataSource.query(
        `INSERT INTO bots (id, owner_id, name, username, review_status, status, system_user_id)
         VALUES ($1, 'owner', $2, $3, $4, $5, $6)`,
        [seed.id, seed.name, seed.username ?? null, seed.review, systemUser ? 'enabled' : 'disabled', systemUser],
      );
    }
    await dataSource.destroy();
    dataSource = testDataSource(database.name, botMigrations);
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('gives each of them the username the approval would give now, also to its system user, skipping taken ones', async () => {
    const after = await usernames();
    const expected: Record<string, string> = {
      [id(2)]: 'gadget_2_bot',
      [id(3)]: 'latte_bot',
      [id(4)]: 'latte_2_bot',
      [id(5)]: 'creme_brulee_bot',
      [id(6)]: 'bot_00000000_bot',
    };
    for (const [botId, username] of Object.entries(expected)) {
      expect(after[botId]).toEqual({ bot: username, user: username });
      const seed = SEEDS.find((s) => s.id === botId)!;
      expect(usernameCandidates(seed.name, botId)).toContain(username);
    }
  });

  it('leaves chosen usernames and bots that are not approved as they were', async () => {
    const after = await usernames();
    expect(after[id(1)]).toEqual({ bot: 'Gadget_Bot', user: 'Gadget_Bot' });
    expect(after[id(7)]).toEqual({ bot: null, user: null });
    expect(after[id(8)]).toEqual({ bot: null, user: null });
  });

  it('down keeps the usernames: bots may already be addressed by them', async () => {
    const before = await usernames();
    await dataSource.undoLastMigration();
    expect(await usernames()).toEqual(before);
    await dataSource.runMigrations();
    expect(await usernames()).toEqual(before);
  });
});
