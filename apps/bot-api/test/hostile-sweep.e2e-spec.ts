import { buildOpenApiDocument } from '@app/platform';
import { printSweepReport, runHostileSweep, startServiceTestApp, writeFingerprintSql } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { BOT_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';
import { DEFAULT_ROUTE_RATE_LIMITS } from '../src/config/route-rate-limits.config';
import { BotTestContext, createApprovedBot, ensureUsers, STAFF_ID } from './app-context';

// About 60 s of requests on a 2-core machine; the sweep stops each operation at its share of the budget.
jest.setTimeout(120_000);

const SEED = 14_2026;

describe('hostile-input sweep over every bot-api operation', () => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    // Without the contract recorder: answers to hostile input (415, 413, 401 on every route) are checked
    // for the envelope here, while the contract of documented statuses is the functional tests' job.
    ctx = await startServiceTestApp({
      service: 'bot',
      migrations: botMigrations,
      schema: BotConfig,
      module: (config) => AppModule.forRoot(config),
      env: {
        // Thousands of calls from one bot and three accounts: limits must not turn the sweep into 429s.
        RATE_LIMITS: Object.keys(DEFAULT_ROUTE_RATE_LIMITS)
          .map((name) => `${name}=1000000`)
          .join(','),
        BOT_DEFAULT_SEND_PER_SEC: '1000000',
        BOT_DEFAULT_SEND_PER_MIN: '1000000',
        BOT_DEFAULT_SEND_PER_DAY: '1000000',
        // A redrive job the sweep starts is worked off in the background; those writes are not a refused request's.
        REDRIVE_WORKER_ENABLED: 'false',
      },
    });
  });
  afterAll(() => ctx.close());

  it('answers thousands of malformed requests without a 5xx, always in the envelope, writing nothing when refusing', async () => {
    const bot = await createApprovedBot(ctx, 'dev-sweep');
    await ensureUsers(ctx, 'user-sweep');
    const accounts = [
      await ctx.jwt('dev-sweep'),
      await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin']),
      await ctx.jwt('user-sweep'),
    ];
    // One call per account first, so its directory entry (written once per period) is not a sweep write.
    for (const jwt of accounts) {
      await request(ctx.app.getHttpServer()).get('/api/v1/bots/my').set('Authorization', `Bearer ${jwt}`);
    }
    const db = ctx.app.get(DataSource);
    // The virtual-member audit log records every call, refused ones by design (spec 4.2): its writes
    // on refusal are the feature, checked by virtual-members.e2e-spec. A deterministic 4xx of a send
    // with an Idempotency-Key is stored under the key for replay, checked by idempotent-sends.e2e-spec.
    // In the PostgreSQL-only mode every call, refused or not, counts against its limits in rate_limits.
    const tables: Array<{ table_name: string }> = await db.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
          AND table_name NOT IN ('migrations', 'virtual_member_audit_log', 'idempotency_keys', 'rate_limits')`,
    );
    const fingerprintSql = writeFingerprintSql(tables.map((t) => t.table_name));
    const document = buildOpenApiDocument(ctx.app, BOT_API_DOCS) as unknown as Parameters<
      typeof runHostileSweep
    >[0]['document'];

    const report = await runHostileSweep({
      app: ctx.app,
      document,
      seed: SEED,
      runsPerOperation: 60,
      budgetMs: 45_000,
      credentials: {
        'bot-token': [`Bearer ${bot.token}`],
        bearer: accounts.map((jwt) => `Bearer ${jwt}`),
        'service-token': [`Bearer ${ctx.config.INTERNAL_API_TOKEN}`],
      },
      // A long poll would hold the sweep for up to 50 s; its validation is swept with other values.
      tame: { timeout: 0 },
      envelopeProblem: botEnvelopeProblem,
      writeFingerprint: async () => (await db.query(fingerprintSql))[0].fingerprint,
    });

    const total = printSweepReport('bot-api', report);
    expect(report.problems).toEqual([]);
    expect(report.sent.size).toBeGreaterThan(90);
    expect(total).toBeGreaterThan(1000);
  });
});

/** `{ success: true, data }` or `{ success: false, code, message }` (bot-service spec section 4). */
function botEnvelopeProblem(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return 'not a JSON object';
  const envelope = body as Record<string, unknown>;
  if (status < 400) return envelope.success === true && 'data' in envelope ? undefined : 'success without data';
  if (envelope.success !== false) return 'error without success: false';
  if (typeof envelope.code !== 'string' || typeof envelope.message !== 'string') return 'error without code or message';
  return undefined;
}
