import {
  codeMapProblems,
  createdTables,
  entityTables,
  readSources,
  REPO_ROOT,
  tableUses,
  tableWriters,
} from '@app/testing';

const DELIVERY_SIDE = 'libs/bot-delivery/src/bot-database/';

/**
 * The tables bot delivery (@app/bot-delivery) owns, each with the one store file that writes it, and
 * so the only ones the dispatcher may write: a bot's row is bot-api's, its delivery settings are delivery's.
 */
const DELIVERY_TABLES: Record<string, string> = {
  bot_delivery_settings: `${DELIVERY_SIDE}bot-delivery-settings.store.ts`,
  telegram_aliases: `${DELIVERY_SIDE}telegram-aliases.store.ts`,
  updates: `${DELIVERY_SIDE}updates.store.ts`,
  webhook_deliveries: `${DELIVERY_SIDE}webhook-deliveries.store.ts`,
  webhook_delivery_attempts: `${DELIVERY_SIDE}webhook-delivery-attempts.store.ts`,
};

/** The tables that INSERT, UPDATE and DELETE statements, and their Kysely builders, in these sources name. */
function writtenTables(texts: readonly string[]): string[] {
  const statement = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)/g;
  const builder = /\b(?:insertInto|updateTable|deleteFrom|mergeInto)\(\s*'([a-z_][a-z0-9_]*)/g;
  const written = texts.flatMap((text) =>
    [...text.matchAll(statement), ...text.matchAll(builder)].map((match) => match[1]),
  );
  return [...new Set(written)].sort();
}

/**
 * bot-dispatcher works on the database bot-api migrates: every statement it runs is one of
 * @app/bot-delivery's, which bot-api compiles against too, and those write only the tables bot
 * delivery owns.
 */
describe('data ownership of bot-dispatcher', () => {
  const tables = createdTables(readSources(REPO_ROOT, 'apps/bot-api/src/database/migrations'));
  const entities = entityTables([
    ...readSources(REPO_ROOT, 'apps/bot-api/src'),
    ...readSources(REPO_ROOT, 'libs/bot-delivery/src'),
  ]);
  const sources = readSources(REPO_ROOT, 'apps/bot-dispatcher/src');

  it('reads its own sources and the tables of the bot database', () => {
    expect(sources.some((source) => source.path.endsWith('delivery.processor.ts'))).toBe(true);
    expect(tables).toContain('webhook_deliveries');
    expect(entities.get('WebhookDelivery')).toBe('webhook_deliveries');
  });

  it('writes, through @app/bot-delivery, only the tables bot delivery owns', () => {
    const delivery = readSources(REPO_ROOT, 'libs/bot-delivery/src').map((source) => source.text);
    const written = writtenTables(delivery);
    expect(written).toContain('webhook_deliveries');
    expect(written.filter((table) => tables.has(table))).toEqual(Object.keys(DELIVERY_TABLES));
  });

  it('has each of those tables written by its one store file', () => {
    const delivery = readSources(REPO_ROOT, 'libs/bot-delivery/src');
    const writers = tableWriters(tableUses(delivery, tables, entities));
    expect(Object.fromEntries(writers)).toEqual(
      Object.fromEntries(Object.entries(DELIVERY_TABLES).map(([table, store]) => [table, [store]])),
    );
  });

  it('queries no table itself, neither with SQL nor through TypeORM entities', () => {
    expect(tableUses(sources, tables, entities)).toEqual([]);
  });

  it('is what docs/code-map.md says: every folder, writing no table', () => {
    expect(codeMapProblems(REPO_ROOT, 'bot-dispatcher', {})).toEqual([]);
  });
});
