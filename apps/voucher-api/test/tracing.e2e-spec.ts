import { randomBytes, randomUUID } from 'node:crypto';
import {
  OtlpReceiver,
  ReceivedSpan,
  ServiceProcess,
  startOtlpReceiver,
  startServiceProcess,
  testEnv,
  waitUntil,
} from '@app/testing';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, GENEROUS_RATE_LIMITS, issuedVoucher } from './runtime-fixtures';

const SERVER = 2;

const statementOf = (span: ReceivedSpan) =>
  String(span.attributes['db.query.text'] ?? span.attributes['db.statement'] ?? '');

/**
 * voucher-api runs as its own process with tracing on (OTLP/HTTP to a receiver in this test) behind a
 * gateway whose trace context it trusts (OTEL_TRUST_INCOMING_CONTEXT); an untraced in-process instance
 * on the same database seeds the application, template and voucher.
 */
describe('traces of a redeem', () => {
  let otlp: OtlpReceiver;
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let api: ServiceProcess;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx);
    api = await startServiceProcess(
      'apps/voucher-api/src/main.ts',
      testEnv(ctx.config.DB_NAME, ctx.config.REDIS_KEY_PREFIX, {
        COORDINATION_BACKEND: ctx.config.coordinationBackend,
        ...GENEROUS_RATE_LIMITS,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_TRUST_INCOMING_CONTEXT: 'true',
        LOG_LEVEL: 'info',
      }),
      60_000,
    );
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await ctx?.close();
    await otlp?.close();
  });

  it("continues a trusted caller's trace through the redeem's transaction, one span per statement, and logs its trace id", async () => {
    const voucher = await issuedVoucher(ctx, app, await activeTemplate(ctx, app));
    // The till's own trace: the redeem continues it, as a W3C traceparent asks.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await fetch(`http://127.0.0.1:${api.port}${API}/vouchers/redeem`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.token}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({
        credential: { type: 'redeem_code', value: voucher.code },
        external_order_id: `order-${randomUUID()}`,
      }),
    });
    expect(res.status).toBe(201);

    const statements = () =>
      otlp
        .traceOf(traceId)
        .filter((s) => s.scope.includes('instrumentation-pg'))
        .map(statementOf);
    // The request's span ends after its statements', and may come in a later export batch: wait for both.
    await waitUntil(
      () => statements().some((sql) => /^COMMIT/i.test(sql)) && otlp.traceOf(traceId).some((s) => s.kind === SERVER),
      `the redeem's trace ${traceId}`,
      15_000,
    );
    const spans = otlp.traceOf(traceId);
    const request = spans.find((s) => s.kind === SERVER)!;
    expect(request).toMatchObject({
      service: 'voucher-api',
      parentSpanId: callerSpanId,
      name: `POST ${API}/vouchers/redeem`,
    });
    const sql = statements();
    const begin = sql.findIndex((s) => /^(BEGIN|START TRANSACTION)/i.test(s));
    const commit = sql.findIndex((s) => /^COMMIT/i.test(s));
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(commit).toBeGreaterThan(begin);
    // The redemption itself is written inside that transaction.
    const writes = sql.slice(begin + 1, commit);
    expect(writes.some((s) => /\b(INSERT INTO|UPDATE)\s+"?(redemptions|vouchers)\b/i.test(s))).toBe(true);
    // Statements are recorded with their placeholders, never the values (the code is a credential).
    expect(sql.join('\n')).not.toContain(voucher.code);

    await waitUntil(() => api.output().includes(traceId), 'the log line of the redeem');
    const line = api
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; trace_id?: string; span_id?: string; req?: { url?: string } })
      .find((l) => l.trace_id === traceId && l.msg === 'request completed');
    expect(line?.req?.url).toBe(`${API}/vouchers/redeem`);
  });
});
