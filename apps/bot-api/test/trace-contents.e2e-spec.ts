import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { OtlpReceiver, ReceivedSpan, ServiceProcess, startOtlpReceiver, waitUntil } from '@app/testing';
import { BotTestContext, createApprovedBot, startBotApp } from './app-context';
import { startDispatcher } from './dispatcher-process';
import { diskStorage, pngOf, StorageUnderTest } from './file-uploads';
import { DeliveryWorld } from './staff-deliveries-world';
import { startTracedBotApi, tracingEnv } from './traced-processes';

const SERVER = 2;
const CLIENT = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

const unique = (label: string) => `${label}-${randomBytes(9).toString('base64url')}`;
const newTraceId = () => randomBytes(16).toString('hex');
const newSpanId = () => randomBytes(8).toString('hex');

/**
 * bot-api and bot-dispatcher run as their own processes with tracing on (OTLP/HTTP to a receiver in
 * this test) and the default trust settings, as deployed; an untraced in-process bot-api on the same
 * database and file directory seeds the bot. Every check reads what the collector received.
 */
describe('what traces take from callers and carry to receivers', () => {
  let otlp: OtlpReceiver;
  let world: DeliveryWorld;
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let api: ServiceProcess;
  let dispatcher: ServiceProcess;
  let apiUrl: string;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    world = await DeliveryWorld.start();
    storage = await diskStorage();
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', REDRIVE_WORKER_ENABLED: 'false', ...storage.env });
    api = await startTracedBotApi(ctx, otlp, { REDRIVE_WORKER_ENABLED: 'false', ...storage.env });
    apiUrl = `http://127.0.0.1:${api.port}`;
    dispatcher = await startDispatcher(
      ctx,
      { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_CA_FILE: world.receiver.caFile, ...tracingEnv(otlp) },
      60_000,
    );
  }, 150_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await api?.stop();
    await ctx?.close();
    await storage?.stop();
    await world?.receiver.close();
    await otlp?.close();
  });

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer) => {
    const res = await fetch(`${apiUrl}${path}`, { method, headers, body });
    return { status: res.status, text: await res.text() };
  };
  const json = async (method: string, path: string, authorization: string, body: object, headers = {}) => {
    const res = await call(
      method,
      path,
      { authorization, 'content-type': 'application/json', ...headers },
      JSON.stringify(body),
    );
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
    return JSON.parse(res.text) as { data: Record<string, string> };
  };
  /** A signed URL the API handed out, called on the traced process. */
  const callSigned = (method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer) => {
    const { pathname, search } = new URL(url);
    return call(method, `${pathname}${search}`, headers, body);
  };
  /**
   * The request span (bot-api's SERVER span) of a call that carried the caller's trace `traceId`: linked
   * to it, or (had the service continued it) in it.
   */
  const requestSpanOf = async (traceId: string): Promise<ReceivedSpan> => {
    const find = () =>
      otlp.spans.find(
        (s) => s.kind === SERVER && (s.traceId === traceId || s.links.some((l) => l.traceId === traceId)),
      );
    await waitUntil(() => find() !== undefined, `the request span of the caller's trace ${traceId}`, 15_000);
    return find()!;
  };
  const traceparent = (traceId: string, flags = '01') => `00-${traceId}-${newSpanId()}-${flags}`;

  it('exports no bot token, file signature, webhook secret or message text from any span of getMe on the Telegram face, a send with text in its query, a signed upload and download and a webhook delivery (defect 3)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-traced', { username: 'traced_bot' });
    const pathSecret = unique('path-secret');
    const querySecret = unique('query-secret');
    const secretToken = unique('secrettoken').replace(/-/g, '_');
    const userText = unique('what the user wrote');
    const botText = unique('what the bot answered');
    const hook = `${world.receiver.url}/${pathSecret}?key=${querySecret}`;

    expect((await call('GET', `/bot${bot.token}/getMe`)).status).toBe(200);
    const setWebhook = await call(
      'GET',
      `/bot${bot.token}/setWebhook?url=${encodeURIComponent(hook)}&secret_token=${secretToken}`,
    );
    expect(setWebhook.status).toBe(200);

    // A person writes to the bot; the dispatcher delivers it to the webhook with the secrets in its URL.
    const person = `Bearer ${await ctx.jwt('traced-person')}`;
    const chat = await json('POST', '/api/v1/bots/client/chats/private', person, { bot_id: bot.botId });
    await json('POST', `/api/v1/bots/client/chats/${chat.data.id}/messages`, person, { text: userText });
    const toHook = () => world.receiver.requests.find((r) => r.path === `/hook/${pathSecret}?key=${querySecret}`);
    await waitUntil(() => toHook() !== undefined, 'the webhook POST', 15_000);
    const delivered = toHook()!;
    const update = JSON.parse(delivered.rawBody.toString('utf8')) as { message: { chat: { id: number } } };

    // The bot answers with its text in the query string, as Telegram lets it.
    const sent = await call(
      'GET',
      `/bot${bot.token}/sendMessage?chat_id=${update.message.chat.id}&text=${encodeURIComponent(botText)}`,
    );
    expect(sent.status).toBe(200);

    // A file through the disk driver's signed URLs: the signature is the credential.
    const bytes = pngOf(4, 4);
    const credentials = await json('POST', '/api/v1/bots/files/upload-credentials', `Bearer ${bot.token}`, {
      fileName: 'p.png',
      fileSize: bytes.length,
      fileType: 'image/png',
    });
    const uploadUrl = credentials.data.uploadUrl;
    const put = await callSigned('PUT', uploadUrl, { 'content-type': 'image/png' }, bytes);
    expect(put.status).toBe(204);
    const file = await json('POST', '/api/v1/bots/files/complete', `Bearer ${bot.token}`, {
      key: credentials.data.key,
      fileName: 'p.png',
      fileSize: bytes.length,
      fileType: 'image/png',
    });
    expect((await callSigned('GET', file.data.url)).status).toBe(200);

    const secrets = {
      token: bot.token,
      tokenBody: bot.token.slice('sbot_'.length),
      pathSecret,
      querySecret,
      secretToken,
      userText,
      botText,
      uploadSignature: new URL(uploadUrl).searchParams.get('signature')!,
      downloadSignature: new URL(file.data.url).searchParams.get('signature')!,
    };
    const webhookPost = TRACEPARENT.exec(String(delivered.headers.traceparent))!;
    const onRoute = (route: string) => (s: ReceivedSpan) => s.kind === SERVER && s.attributes['http.route'] === route;
    const telegramCalls = onRoute('/bot:token/:method');
    const byteCalls = onRoute('/api/v1/bots/files/storage/:blob');
    const webhookPostSpan = (s: ReceivedSpan) => s.kind === CLIENT && s.spanId === webhookPost[2];
    const count = (check: (s: ReceivedSpan) => boolean) => otlp.spans.filter(check).length;
    await waitUntil(
      () => count(telegramCalls) >= 3 && count(byteCalls) >= 2 && count(webhookPostSpan) === 1,
      'the spans of every call',
      15_000,
    );
    const server = (path: string) => (s: ReceivedSpan) => s.kind === SERVER && s.attributes['url.path'] === path;

    const exported = JSON.stringify(otlp.spans.map(({ name, attributes }) => ({ name, attributes })));
    for (const [what, secret] of Object.entries(secrets)) {
      expect({ what, exported: exported.includes(secret) }).toEqual({ what, exported: false });
    }
    // What is kept says what happened: the method, the route, the receiver's host, the shape parameters.
    const download = otlp.spans.filter(byteCalls).find((s) => s.attributes['http.request.method'] === 'GET')!;
    expect(String(download.attributes['url.query'])).toMatch(/^type=image%2Fpng&expires=\d+&signature=REDACTED$/);
    expect(otlp.spans.find(server('/botREDACTED/sendMessage'))?.attributes['url.query']).toBe(
      'chat_id=REDACTED&text=REDACTED',
    );
    expect(otlp.spans.filter(telegramCalls).map((s) => s.attributes['url.path'])).toEqual(
      expect.arrayContaining(['/botREDACTED/getMe', '/botREDACTED/setWebhook', '/botREDACTED/sendMessage']),
    );
    const post = otlp.spans.find(webhookPostSpan)!;
    expect(String(post.attributes['url.full'])).toMatch(new RegExp(`^https://[^/]+:${world.receiver.port}/REDACTED$`));
  });

  it("passes no caller's baggage on to the bot's webhook and starts a trace of its own, linked to the caller's (defect 7)", async () => {
    const bot = await createApprovedBot(ctx, 'dev-baggage', { username: 'baggage_bot' });
    const set = await call(
      'GET',
      `/bot${bot.token}/setWebhook?url=${encodeURIComponent(`${world.receiver.url}?bot=baggage`)}`,
    );
    expect(set.status).toBe(200);
    const person = `Bearer ${await ctx.jwt('baggage-person')}`;
    const chat = await json('POST', '/api/v1/bots/client/chats/private', person, { bot_id: bot.botId });
    const callerTrace = newTraceId();
    await json(
      'POST',
      `/api/v1/bots/client/chats/${chat.data.id}/messages`,
      person,
      { text: 'hello' },
      { baggage: 'injected=from-end-user', traceparent: traceparent(callerTrace) },
    );
    await waitUntil(
      () => world.receiver.requests.some((r) => r.path === '/hook?bot=baggage'),
      'the webhook POST',
      15_000,
    );
    const received = world.receiver.requests.find((r) => r.path === '/hook?bot=baggage')!;
    expect(received.headers.baggage).toBeUndefined();
    expect(JSON.stringify(received.headers)).not.toContain('from-end-user');
    const [, webhookTrace] = TRACEPARENT.exec(String(received.headers.traceparent))!;
    expect(webhookTrace).not.toBe(callerTrace);

    // The request is the root of the service's own trace, which the webhook POST continues.
    const request = await requestSpanOf(callerTrace);
    expect(request.links).toEqual([expect.objectContaining({ traceId: callerTrace })]);
    expect(request.parentSpanId).toBeUndefined();
    expect(request.traceId).toBe(webhookTrace);
    expect(otlp.spans.some((s) => s.traceId === callerTrace)).toBe(false);
  });

  it("traces a request whose caller marked its context unsampled: the caller's flag decides nothing (defect 7)", async () => {
    const bot = await createApprovedBot(ctx, 'dev-unsampled', { username: 'unsampled_bot' });
    const callerTrace = newTraceId();
    const res = await call('GET', `/bot${bot.token}/getMe`, { traceparent: traceparent(callerTrace, '00') });
    expect(res.status).toBe(200);
    const request = await requestSpanOf(callerTrace);
    expect(request.links).toEqual([expect.objectContaining({ traceId: callerTrace })]);
    expect(request).toMatchObject({ parentSpanId: undefined, attributes: { 'url.path': '/botREDACTED/getMe' } });
  });

  it('bounds what a caller can make a request span record: headers, query parameters, trace state (defect 7)', async () => {
    const callerTrace = newTraceId();
    const query = Array.from({ length: 100 }, (_, i) => `p${i}=${'v'.repeat(20)}`).join('&');
    // Under Node's 16 KB of headers, which a longer request is refused for (431) before any span starts.
    // node:http rather than fetch, which would not let the Host header be written.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${apiUrl}/api/v1/bots/getMe?${query}`, {
        headers: {
          traceparent: traceparent(callerTrace),
          tracestate: Array.from({ length: 60 }, (_, i) => `k${i}=${'s'.repeat(20)}`).join(','),
          'user-agent': 'u'.repeat(4000),
          'x-forwarded-for': Array.from({ length: 200 }, (_, i) => `10.0.${i % 250}.${i % 200}`).join(', '),
          host: `${'h'.repeat(1000)}.example`,
        },
      });
      req.on('response', (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(401);
    const request = await requestSpanOf(callerTrace);
    const values = Object.values(request.attributes).map(String);
    expect(Object.keys(request.attributes).length).toBeLessThanOrEqual(64);
    expect(Math.max(...values.map((v) => v.length))).toBeLessThanOrEqual(512);
    expect(String(request.attributes['user_agent.original']).length).toBe(256);
    expect(String(request.attributes['url.query']).split('&')).toHaveLength(17);
    expect(request.links).toHaveLength(1);
  });

  it('traces a request with a made-up x-warm-up header, and a path that only starts like a probe (defect 8)', async () => {
    const bot = await createApprovedBot(ctx, 'dev-warm', { username: 'warm_bot' });
    const warmTrace = newTraceId();
    const healthTrace = newTraceId();
    const marked = await call('GET', `/bot${bot.token}/getMe`, {
      'x-warm-up': randomBytes(24).toString('base64url'),
      traceparent: traceparent(warmTrace),
    });
    expect(marked.status).toBe(200);
    const lookAlike = await call('GET', '/healthz-anything', {
      'x-warm-up': 'mark',
      traceparent: traceparent(healthTrace),
    });
    expect(lookAlike.status).toBe(404);
    expect((await requestSpanOf(warmTrace)).attributes['url.path']).toBe('/botREDACTED/getMe');
    expect((await requestSpanOf(healthTrace)).attributes['url.path']).toBe('/healthz-anything');
  });
});
