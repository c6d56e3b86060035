import { codeMapProblems, createdTables, entityTables, readSources, REPO_ROOT, tableUses } from '@app/testing';

/**
 * The columns of a bot's row the dispatcher writes, through the statement that records attempts, and
 * why. Everything else in `bots` is bot-api's: a new column written here must be added with its reason.
 */
const BOT_COLUMNS_WRITTEN: Record<string, string> = {
  webhook_last_error_at: 'getWebhookInfo shows when the last delivery failed',
  webhook_last_error_message: 'getWebhookInfo shows why',
  webhook_gone_streak: 'consecutive 410 Gone answers, towards the pause',
  webhook_paused_at: 'a run of 410 Gone answers pauses the deliveries until setWebhook',
  webhook_not_before: "the receiver's Retry-After",
  webhook_recovered_at:
    "self-healing dead letters: a success while dead letters wait marks the bot for bot-api's redrive worker",
};

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

  it('writes only the registered delivery side columns of a bot, through the statement that records attempts', () => {
    const statements = readSources(REPO_ROOT, 'libs/webhook-queue/src/bot-database').find((source) =>
      source.path.endsWith('/delivery-statements.ts'),
    );
    const recordAttempts = /RECORD_ATTEMPTS = namedStatement\(([\s\S]*?)\n\);/.exec(statements?.text ?? '')?.[1] ?? '';
    const update = /UPDATE bots b\s+SET([\s\S]*?)\n\s*FROM per_bot/.exec(recordAttempts)?.[1] ?? '';
    const assigned = [...update.matchAll(/(?:^|,)\s*(\w+)\s*=(?!=)/g)].map((match) => match[1]);
    expect(assigned.sort()).toEqual(Object.keys(BOT_COLUMNS_WRITTEN).sort());
  });

  it('queries no table itself, neither with SQL nor through TypeORM entities', () => {
    expect(tableUses(sources, tables, entities)).toEqual([]);
  });

  it('is what docs/code-map.md says: every folder, writing no table', () => {
    expect(codeMapProblems(REPO_ROOT, 'bot-dispatcher', {})).toEqual([]);
  });
});
