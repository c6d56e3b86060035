import { buildOpenApiDocument } from '@app/platform';
import { printSweepReport, runHostileSweep, startServiceTestApp, writeFingerprintSql } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';
import { seedApplication, seedUser, VoucherTestContext } from './app-context';
import { BotApiProcess, startBotApiProcess, TEST_INTERNAL_API_TOKEN } from './bot-api-process';
import { GENEROUS_RATE_LIMITS } from './runtime-fixtures';

// About 60 s of requests on a 2-core machine; the sweep stops each operation at its share of the budget.
jest.setTimeout(120_000);

const SEED = 14_2026;

describe('hostile-input sweep over every voucher-api operation', () => {
  let ctx: VoucherTestContext;
  let botApi: BotApiProcess;

  beforeAll(async () => {
    // A template's cover_file_id is checked with bot-api, so the sweep's file ids reach a real one.
    botApi = await startBotApiProcess();
    // Without the contract recorder: answers to hostile input (415, 413, 401 on every route) are checked
    // for the envelope here, while the contract of documented statuses is the functional tests' job.
    ctx = await startServiceTestApp({
      service: 'voucher',
      migrations: voucherMigrations,
      schema: VoucherConfig,
      module: (config) => AppModule.forRoot(config),
      // Thousands of calls from one token and three accounts: limits must not turn the sweep into 429s.
      env: {
        ...GENEROUS_RATE_LIMITS,
        GUESS_LIMIT: '100000',
        BOT_API_URL: botApi.url,
        INTERNAL_API_TOKEN: TEST_INTERNAL_API_TOKEN,
      },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await botApi?.stop();
  });

  it('answers thousands of malformed requests without a 5xx, always in the envelope, writing nothing when refusing', async () => {
    const app = await seedApplication(ctx, { ownerId: 'owner-sweep' });
    await seedUser(ctx, 'holder-sweep');
    const accounts = [
      await ctx.jwt('owner-sweep'),
      await ctx.jwt('staff-sweep', 'Staff', ['platform_admin']),
      await ctx.jwt('holder-sweep'),
    ];
    // One call per account first, so its directory entry (written once per period) is not a sweep write.
    for (const jwt of accounts) {
      await request(ctx.app.getHttpServer())
        .get('/api/v1/open-platform/applications')
        .set('Authorization', `Bearer ${jwt}`);
    }
    const db = ctx.app.get(DataSource);
    const tables: Array<{ table_name: string }> = await db.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'migrations'`,
    );
    // Writes a refused call makes by design: a deterministic 4xx is stored under its Idempotency-Key for
    // replay (decisions: idempotency), and a token's last_used_at is stamped whatever the answer. In the
    // PostgreSQL-only mode every call, refused or not, counts against its limits in rate_limits.
    const bookkeeping = new Set(['idempotency_keys', 'app_tokens', 'rate_limits']);
    const fingerprintSql = writeFingerprintSql(
      tables.map((t) => t.table_name).filter((name) => !bookkeeping.has(name)),
    );
    const document = buildOpenApiDocument(ctx.app, VOUCHER_API_DOCS) as unknown as Parameters<
      typeof runHostileSweep
    >[0]['document'];

    const report = await runHostileSweep({
      app: ctx.app,
      document,
      seed: SEED,
      runsPerOperation: 120,
      budgetMs: 45_000,
      credentials: {
        'app-token': [`Bearer ${app.token}`],
        bearer: accounts.map((jwt) => `Bearer ${jwt}`),
      },
      envelopeProblem: voucherEnvelopeProblem,
      writeFingerprint: async () => (await db.query(fingerprintSql))[0].fingerprint,
    });

    const total = printSweepReport('voucher-api', report);
    expect(report.problems).toEqual([]);
    expect(report.sent.size).toBeGreaterThan(35);
    expect(total).toBeGreaterThan(1000);
  });
});

/** `{ success, code, message, data | error, meta }` (voucher-service spec 2.1), `code` being the HTTP status. */
function voucherEnvelopeProblem(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return 'not a JSON object';
  const envelope = body as Record<string, unknown>;
  if (envelope.code !== status || typeof envelope.message !== 'string') return 'code is not the status';
  if (typeof envelope.meta !== 'object' || envelope.meta === null) return 'no meta';
  if (status < 400) return envelope.success === true && 'data' in envelope ? undefined : 'success without data';
  if (envelope.success !== false) return 'error without success: false';
  const error = envelope.error as Record<string, unknown> | undefined;
  return typeof error?.code === 'string' ? undefined : 'error without error.code';
}
