import { createdTables, entityTables, readSources, REPO_ROOT, tableUses } from '@app/testing';

/**
 * bot-dispatcher works on the database bot-api migrates and owns none of its tables: every statement
 * it runs is one of @app/webhook-queue's, which bot-api compiles against too.
 */
describe('data ownership of bot-dispatcher', () => {
  const tables = createdTables(readSources(REPO_ROOT, 'apps/bot-api/src/database/migrations'));
  const entities = entityTables([
    ...readSources(REPO_ROOT, 'apps/bot-api/src'),
    ...readSources(REPO_ROOT, 'libs/webhook-queue/src'),
  ]);
  const sources = readSources(REPO_ROOT, 'apps/bot-dispatcher/src');

  it('reads its own sources and the tables of the bot database', () => {
    expect(sources.some((source) => source.path.endsWith('delivery.processor.ts'))).toBe(true);
    expect(tables).toContain('webhook_deliveries');
    expect(entities.get('WebhookDelivery')).toBe('webhook_deliveries');
  });

  it('queries no table itself, neither with SQL nor through TypeORM entities', () => {
    expect(tableUses(sources, tables, entities)).toEqual([]);
  });
});
