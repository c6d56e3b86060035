import { DataSource } from 'typeorm';
import {
  describeEachBackend,
  OtlpReceiver,
  ReceivedRequest,
  ReceivedSpan,
  ServiceProcess,
  startOtlpReceiver,
  waitUntil,
} from '@app/testing';
import { BotTestContext, startBotApp } from './app-context';
import { startDispatcher } from './dispatcher-process';
import { DeliveryWorld, FAST_RETRIES, hookBot, HookBot, STAFF } from './staff-deliveries-world';
import { startTracedBotApi, tracingEnv } from './traced-processes';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** The trace and parent span a webhook POST's `traceparent` names. */
function traceparentOf(request: ReceivedRequest): { traceId: string; spanId: string } {
  const match = TRACEPARENT.exec(String(request.headers.traceparent ?? ''));
  if (!match) throw new Error(`no traceparent on the webhook POST: ${JSON.stringify(request.headers)}`);
  return { traceId: match[1], spanId: match[2] };
}

/** The span's parent, its parent's parent, and so on up to the root. */
function ancestorsOf(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const parent = spans.find((s) => s.spanId === span.parentSpanId);
  return parent ? [parent, ...ancestorsOf(spans, parent)] : [];
}

const statementOf = (span: ReceivedSpan) =>
  String(span.attributes['db.query.text'] ?? span.attributes['db.statement'] ?? '');
const isStatement = (span: ReceivedSpan) => span.scope.includes('instrumentation-pg') && statementOf(span) !== '';

/**
 * bot-api and bot-dispatcher run as their own processes with tracing on (OTLP/HTTP to a receiver in
 * this test), as deployed; an untraced in-process bot-api seeds bots and chats on the same database.
 */
describeEachBackend('traces of a message, its deliveries and a redrive', (backend) => {
  let otlp: OtlpReceiver;
  let world: DeliveryWorld;
  let ctx: BotTestContext;
  let api: ServiceProcess;
  let dispatcher: ServiceProcess;
  let apiUrl: string;
  /** Tags whose first webhook POST the receiver answers 502 (every other POST gets 200). */
  const failFirst = new Set<string>();

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    world = await DeliveryWorld.start();
    const seen = new Map<string, number>();
    world.receiver.answer((req) => {
      const tag = new URL(req.path, 'https://x').searchParams.get('bot') ?? '';
      const index = seen.get(tag) ?? 0;
      seen.set(tag, index + 1);
      return failFirst.has(tag) && index === 0 ? 502 : 200;
    });
    ctx = await startBotApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      REDRIVE_WORKER_ENABLED: 'false',
      COORDINATION_BACKEND: backend,
    });
    const logged = { LOG_LEVEL: 'info' };
    api = await startTracedBotApi(ctx, otlp, { REDRIVE_STEP_MS: '100', ...logged });
    apiUrl = `http://127.0.0.1:${api.port}`;
    dispatcher = await startDispatcher(
      ctx,
      { ...FAST_RETRIES, WEBHOOK_CA_FILE: world.receiver.caFile, ...tracingEnv(otlp), ...logged },
      60_000,
    );
  }, 120_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await api?.stop();
    await ctx?.close();
    await world?.receiver.close();
    await otlp?.close();
  });

  const post = async (path: string, jwt: string, body: object) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: { id: string } };
  };
  const say = async (bot: HookBot, text: string) =>
    post(`/api/v1/bots/client/chats/${bot.chatId}/messages`, await ctx.jwt('enduser'), { text });
  const requestsOf = (bot: HookBot) =>
    world.receiver.requests.filter((r) => new URL(r.path, 'https://x').searchParams.get('bot') === bot.tag);
  /** Waits until the trace holds spans matching every check (exports arrive in batches). */
  const traceWith = async (traceId: string, ...checks: Array<(spans: ReceivedSpan[]) => boolean>) => {
    try {
      await waitUntil(() => checks.every((check) => check(otlp.traceOf(traceId))), `trace ${traceId}`, 15_000);
    } catch (error) {
      const seen = otlp.traceOf(traceId).map((s) => `${s.service}:${s.kind}:${s.name}`);
      throw new Error(`${(error as Error).message}; its spans: ${seen.join(', ')}`);
    }
    return otlp.traceOf(traceId);
  };

  it("follows one user message from the API request through its transaction, the job and the dispatcher's attempt to the webhook POST", async () => {
    const bot = await hookBot(ctx, world, `trace_${backend}`);
    await say(bot, 'hello, traced');
    await waitUntil(() => requestsOf(bot).length === 1, 'the webhook POST', 15_000);
    const { traceId, spanId } = traceparentOf(requestsOf(bot)[0]);

    // Each process exports its spans in batches of its own: wait for every span the checks below read.
    const spans = await traceWith(
      traceId,
      (s) => s.some((span) => span.spanId === spanId),
      (s) => s.some((span) => span.service === 'bot-dispatcher' && span.kind === CONSUMER),
      (s) => s.some((span) => span.service === 'bot-api' && span.kind === SERVER),
      (s) => s.some((span) => span.service === 'bot-api' && span.kind === PRODUCER),
      (s) => s.some((span) => isStatement(span) && /INSERT INTO "?webhook_deliveries"?/i.test(statementOf(span))),
    );
    const request = spans.find((s) => s.service === 'bot-api' && s.kind === SERVER)!;
    expect(request).toBeDefined();
    // One trace: the API request is its only root.
    expect(spans.filter((s) => !s.parentSpanId)).toEqual([request]);
    // The statement that writes the message, its Update and the outbox row, inside the request.
    const write = spans.find(
      (s) => s.service === 'bot-api' && isStatement(s) && /INSERT INTO "?webhook_deliveries"?/i.test(statementOf(s)),
    );
    expect(write).toBeDefined();
    expect(ancestorsOf(spans, write!)).toContain(request);
    // The job, added once that write is committed, in the same trace.
    const add = spans.find((s) => s.service === 'bot-api' && s.kind === PRODUCER)!;
    expect(add.name).toBe('add webhook-deliveries.deliver');
    expect(ancestorsOf(spans, add)).toContain(request);
    const attempt = spans.find((s) => s.service === 'bot-dispatcher' && s.kind === CONSUMER)!;
    expect(attempt.parentSpanId).toBe(add!.spanId);
    expect(attempt.attributes).toMatchObject({ 'webhook.attempt': 1, 'webhook.outcome': 'succeeded' });
    // The webhook POST is the attempt's client span, and the receiver was handed that span as parent.
    const webhookPost = spans.find((s) => s.spanId === spanId)!;
    expect(webhookPost).toMatchObject({ service: 'bot-dispatcher', kind: CLIENT, parentSpanId: attempt.spanId });

    // The request's log line carries its trace.
    await waitUntil(() => api.output().includes(traceId), 'the log line of the request');
    const line = api
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; trace_id?: string; span_id?: string; req?: { url?: string } })
      .find((l) => l.trace_id === traceId && l.msg === 'request completed');
    expect(line?.req?.url).toBe(`/api/v1/bots/client/chats/${bot.chatId}/messages`);
    expect(line?.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('shows each attempt of a retried delivery under the job that carried it', async () => {
    const bot = await hookBot(ctx, world, `retried_${backend}`);
    failFirst.add(bot.tag);
    await say(bot, 'hello, twice');
    await waitUntil(() => requestsOf(bot).length === 2, 'both webhook POSTs', 15_000);
    const [first, second] = requestsOf(bot).map(traceparentOf);
    expect(second.traceId).toBe(first.traceId);
    expect(second.spanId).not.toBe(first.spanId);

    const spans = await traceWith(
      first.traceId,
      (s) =>
        s.filter(
          (span) => span.service === 'bot-dispatcher' && span.kind === CONSUMER && 'webhook.outcome' in span.attributes,
        ).length === 2,
      (s) => s.some((span) => span.kind === PRODUCER && span.name === 'add webhook-deliveries.deliver'),
      (s) => s.some((span) => span.spanId === first.spanId) && s.some((span) => span.spanId === second.spanId),
    );
    const add = spans.find((s) => s.kind === PRODUCER && s.name === 'add webhook-deliveries.deliver')!;
    const attempts = spans.filter(
      (s) => s.service === 'bot-dispatcher' && s.kind === CONSUMER && 'webhook.outcome' in s.attributes,
    );
    expect(
      attempts.map((s) => [s.parentSpanId, s.attributes['webhook.attempt'], s.attributes['webhook.outcome']]),
    ).toEqual([
      [add.spanId, 1, 'retrying'],
      [add.spanId, 2, 'succeeded'],
    ]);
    expect(attempts[0].attributes['http.response.status_code']).toBe(502);
    // Each POST is the child of its own attempt.
    expect(spans.find((s) => s.spanId === first.spanId)?.parentSpanId).toBe(attempts[0].spanId);
    expect(spans.find((s) => s.spanId === second.spanId)?.parentSpanId).toBe(attempts[1].spanId);
  });

  it("carries a staff redrive's trace from its request through the redrive job to the redelivered POST", async () => {
    const bot = await hookBot(ctx, world, `redrive_${backend}`);
    const db = ctx.app.get(DataSource);
    await db.query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts,
                                       dead_letter_at, last_error, last_status_code)
       VALUES ($1, 1, gen_random_uuid(), 'message', '{"n":1}', 'dead_letter', 5, now(), 'HTTP 502', 502)`,
      [bot.botId],
    );
    await post('/api/v1/bots/admin/deliveries/redrives', await ctx.jwt(STAFF, 'SRE', ['platform_admin']), {
      bot_id: bot.botId,
    });
    await waitUntil(() => requestsOf(bot).length === 1, 'the webhook POST', 15_000);
    const { traceId, spanId } = traceparentOf(requestsOf(bot)[0]);

    const spans = await traceWith(
      traceId,
      (s) => s.some((span) => span.spanId === spanId),
      (s) => s.some((span) => span.service === 'bot-api' && span.kind === SERVER),
      (s) => s.some((span) => span.kind === CONSUMER && span.name === 'process bot-api-redrives'),
    );
    const root = spans.filter((s) => !s.parentSpanId);
    expect(root).toHaveLength(1);
    expect(root[0]).toMatchObject({ service: 'bot-api', kind: SERVER });
    expect(
      spans.some((s) => s.service === 'bot-api' && s.kind === CONSUMER && s.name === 'process bot-api-redrives'),
    ).toBe(true);
    expect(spans.find((s) => s.spanId === spanId)?.service).toBe('bot-dispatcher');
  });
});
