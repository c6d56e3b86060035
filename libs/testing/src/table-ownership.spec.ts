import {
  createdTables,
  describeWriters,
  entityTables,
  fragmentUses,
  ownershipProblems,
  Source,
  tableUses,
  tableWriters,
} from './table-ownership';

const migration: Source = {
  path: 'db/migrations/1-Create.ts',
  text: 'await q.query(`CREATE TABLE bots (id text)`); await q.query(`CREATE TABLE chats (id uuid)`);',
};
const entity: Source = {
  path: 'chats/chat.entity.ts',
  text: "@Entity({ name: 'chats' })\nexport class Chat {\n  id: string;\n}",
};
const botsStore: Source = {
  path: 'bots/bots.store.ts',
  text: `
    const BY_ID = namedStatement('by-id', 'SELECT * FROM bots WHERE id = $1');
    export class BotsStore {
      inChat(chatId: string) {
        return this.db.query(\`SELECT b.id FROM bots b JOIN chats c ON c.id = \${chatId} WHERE \${available('b')}\`);
      }
    }`,
};
const chatsService: Source = {
  path: 'chats/chats.service.ts',
  text: `
    export class ChatsService {
      open(manager: EntityManager) {
        const rows = manager.query('UPDATE bots SET name = $1');
        return manager.getRepository(Chat).findOneBy({ id: 'x' });
      }
      describe() {
        return 'Bots update their chats FROM time to time';
      }
    }`,
};

describe('table ownership scan', () => {
  const tables = createdTables([migration]);
  const entities = entityTables([entity]);
  const uses = tableUses([botsStore, chatsService], tables, entities);
  const owners = { bots: 'bots/bots.store.ts', chats: 'chats/' };

  it('reads the created tables and the entity classes mapped to them', () => {
    expect([...tables]).toEqual(['bots', 'chats']);
    expect(entities.get('Chat')).toBe('chats');
  });

  it('finds each table of SQL text and of TypeORM entity calls, with the declaration it sits in', () => {
    expect(uses).toEqual([
      { at: 'bots/bots.store.ts#BY_ID', path: 'bots/bots.store.ts', table: 'bots', via: 'sql', writes: false },
      {
        at: 'bots/bots.store.ts#BotsStore.inChat',
        path: 'bots/bots.store.ts',
        table: 'bots',
        via: 'sql',
        writes: false,
      },
      {
        at: 'bots/bots.store.ts#BotsStore.inChat',
        path: 'bots/bots.store.ts',
        table: 'chats',
        via: 'sql',
        writes: false,
      },
      {
        at: 'chats/chats.service.ts#ChatsService.open',
        path: 'chats/chats.service.ts',
        table: 'bots',
        via: 'sql',
        writes: true,
      },
      {
        at: 'chats/chats.service.ts#ChatsService.open',
        path: 'chats/chats.service.ts',
        table: 'chats',
        via: 'typeorm',
        writes: false,
      },
    ]);
  });

  it('reports a statement on a table of another owner unless it is allowed', () => {
    expect(ownershipProblems(uses, { owners, allowed: [] })).toEqual([
      'bots/bots.store.ts#BotsStore.inChat: sql on chats, which chats/ owns',
      'chats/chats.service.ts#ChatsService.open: sql writes bots, which bots/bots.store.ts owns',
    ]);
    const allowed = [
      { at: 'bots/bots.store.ts#BotsStore.inChat', tables: ['chats'], reason: 'bots in a chat' },
      { at: 'chats/chats.service.ts#ChatsService.open', tables: ['bots'], reason: 'test', writes: true },
    ];
    expect(ownershipProblems(uses, { owners, allowed })).toEqual([]);
  });

  it('reports a table without owner and an allowance that no statement needs any more', () => {
    const allowed = [{ at: 'bots/bots.store.ts#BY_ID', tables: ['chats'], reason: 'gone' }];
    expect(ownershipProblems(uses, { owners: { chats: 'chats/' }, allowed })).toEqual([
      'bots/bots.store.ts#BY_ID: table bots has no owner',
      'bots/bots.store.ts#BotsStore.inChat: table bots has no owner',
      'bots/bots.store.ts#BotsStore.inChat: sql on chats, which chats/ owns',
      'chats/chats.service.ts#ChatsService.open: table bots has no owner',
      'allowed bots/bots.store.ts#BY_ID on chats: no statement there needs all of that any more',
    ]);
  });

  it("allows a listed read of another owner's table, but not a write unless the allowance says so", () => {
    const write = [{ at: 'chats/chats.service.ts#ChatsService.open', tables: ['bots'], reason: 'renames' }];
    expect(ownershipProblems(uses, { owners: { ...owners, chats: 'bots/' }, allowed: write })).toContain(
      'chats/chats.service.ts#ChatsService.open: sql writes bots, which bots/bots.store.ts owns',
    );
    const allowed = [{ ...write[0], writes: true }];
    expect(ownershipProblems(uses, { owners: { bots: 'bots/bots.store.ts', chats: 'chats/' }, allowed })).toEqual([
      'bots/bots.store.ts#BotsStore.inChat: sql on chats, which chats/ owns',
    ]);
  });

  describe('spliced fragments', () => {
    const outbox: Source = {
      path: 'updates/updates.store.ts',
      text: `
        export function updatesWriteSql(first: number) {
          return \`written AS (INSERT INTO updates (id) SELECT \${first}), delivered AS (\${deliveriesSql('written')})\`;
        }`,
    };
    const delivery: Source = {
      path: 'delivery/statements.ts',
      text: 'export const deliveriesSql = (from: string) => `INSERT INTO deliveries SELECT * FROM ${from} JOIN bots b ON true`;',
    };
    const messages: Source = {
      path: 'messages/messages.store.ts',
      text: 'const INSERT = `WITH message AS (INSERT INTO messages (id) VALUES ($1)), ${updatesWriteSql(2)} SELECT 1`;',
    };
    const sources = [outbox, delivery, messages];
    const all = new Set(['updates', 'deliveries', 'messages', 'bots']);
    const spliced = tableUses(sources, all, new Map());
    const fragments = fragmentUses(sources, spliced);

    it('follows a statement through the fragments it splices in, and through theirs', () => {
      expect(fragments).toEqual([
        {
          at: 'updates/updates.store.ts#updatesWriteSql',
          fragment: 'delivery/statements.ts#deliveriesSql',
          table: 'deliveries',
          writes: true,
        },
        {
          at: 'updates/updates.store.ts#updatesWriteSql',
          fragment: 'delivery/statements.ts#deliveriesSql',
          table: 'bots',
          writes: false,
        },
        {
          at: 'messages/messages.store.ts#INSERT',
          fragment: 'updates/updates.store.ts#updatesWriteSql',
          table: 'updates',
          writes: true,
        },
        {
          at: 'messages/messages.store.ts#INSERT',
          fragment: 'delivery/statements.ts#deliveriesSql',
          table: 'deliveries',
          writes: true,
        },
        {
          at: 'messages/messages.store.ts#INSERT',
          fragment: 'delivery/statements.ts#deliveriesSql',
          table: 'bots',
          writes: false,
        },
      ]);
    });

    it("names each table's writers by the file whose text writes it, and where that text is spliced", () => {
      expect(Object.fromEntries(tableWriters(spliced))).toEqual({
        deliveries: ['delivery/statements.ts'],
        messages: ['messages/messages.store.ts'],
        updates: ['updates/updates.store.ts'],
      });
      expect(describeWriters(spliced, fragments).split('\n')).toEqual([
        'deliveries <- delivery/statements.ts (spliced into messages/messages.store.ts#INSERT, updates/updates.store.ts#updatesWriteSql)',
        'messages <- messages/messages.store.ts',
        'updates <- updates/updates.store.ts (spliced into messages/messages.store.ts#INSERT)',
      ]);
    });
  });
});
