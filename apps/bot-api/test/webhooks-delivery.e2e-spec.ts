import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  describeEachBackend,
  eventually,
  HttpsReceiver,
  quietPeriod,
  ReceivedRequest,
  ReceiverAnswer,
  startHttpsReceiver,
  waitUntil,
} from '@app/testing';
import { verifyWebhookSignatureV1, verifyWebhookSignatureV2 } from '@app/bot-delivery';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';

const SECRET = 'hook_secret-42';
const TIMEOUT_MS = 500;

interface HookBot extends ApprovedBot {
  tag: string;
  owner: string;
  chatId: string;
}

interface DeliveryRow {
  update_id: string;
  status: string;
  attempts: number;
  series: number;
}

describeEachBackend('webhook delivery end to end: bot-api writes, bot-dispatcher POSTs (spec 3.4, 6.3)', (backend) => {
  let ctx: BotTestContext;
  let receiver: HttpsReceiver;
  let dispatcher: DispatcherProcess;
  let alice: string;
  const answers = new Map<string, (request: ReceivedRequest, index: number) => ReceiverAnswer>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    receiver.answer((req) => {
      const tag = new URL(req.path, 'https://x').searchParams.get('bot') ?? '';
      const decide = answers.get(tag);
      return decide ? decide(req, requestsOf(tag).length - 1) : 200;
    });
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', COORDINATION_BACKEND: backend });
    dispatcher = await startDispatcher(ctx, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      DELIVERY_RETRY_DELAYS_MS: '20,20,20,20',
      DELIVERY_SWEEP_INTERVAL_MS: '200',
      DELIVERY_SWEEP_GRACE_MS: '1000',
    });
    alice = await ctx.jwt('alice', 'Alice');
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await ctx?.close();
    await receiver?.close();
  });

  const server = () => ctx.app.getHttpServer();
  const db = () => ctx.app.get(DataSource);
  const requestsOf = (tag: string) =>
    receiver.requests.filter((r) => new URL(r.path, 'https://x').searchParams.get('bot') === tag);

  async function hookBot(tag: string, webhook: Record<string, unknown> = {}): Promise<HookBot> {
    const owner = `dev-${tag}`;
    const bot = await createApprovedBot(ctx, owner, { username: `${tag}_bot` });
    await callBot(ctx, bot.token, 'setWebhook', {
      url: `${receiver.url}?bot=${tag}`,
      secret_token: SECRET,
      ...webhook,
    }).expect(200);
    const chat = await request(server())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    return { ...bot, tag, owner, chatId: chat.body.data.id };
  }

  function say(bot: HookBot, text: string) {
    return request(server())
      .post(`/api/v1/bots/client/chats/${bot.chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
  }

  /** A developer-console call on the bot's deliveries as its owner; expects 200. */
  async function deliveryConsole(bot: HookBot, path = '', method: 'get' | 'post' = 'get', body?: object) {
    const call = request(server())
      [method](`/api/v1/bots/my/${bot.botId}/deliveries${path}`)
      .set('Authorization', `Bearer ${await ctx.jwt(bot.owner)}`);
    return (body ? call.send(body) : call).expect(200);
  }

  async function deliveries(botId: string): Promise<DeliveryRow[]> {
    return db().query(
      `SELECT update_id, status, attempts, series FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq`,
      [botId],
    );
  }

  async function waitForDeliveries(
    bot: HookBot,
    done: (rows: DeliveryRow[]) => boolean,
    timeoutMs = 10_000,
  ): Promise<DeliveryRow[]> {
    return eventually(async () => {
      const rows = await deliveries(bot.botId);
      if (!done(rows)) throw new Error(`deliveries did not settle: ${JSON.stringify(rows)}\n${dispatcher.output()}`);
      return rows;
    }, timeoutMs);
  }

  it('POSTs a user message once, signed V1 and V2 over the raw bytes, with X-Service-Update-Id = update_id', async () => {
    const bot = await hookBot('signed');
    await say(bot, 'hello webhook');
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    await quietPeriod(400, 'a delivered Update is not POSTed again');
    const requests = requestsOf('signed');
    expect(requests).toHaveLength(1);
    const [hook] = requests;
    const { rawBody, headers } = hook;
    expect(headers['content-type']).toBe('application/json');
    expect(verifyWebhookSignatureV1(SECRET, rawBody, headers['x-service-signature'] as string)).toBe(true);
    expect(
      verifyWebhookSignatureV2(
        SECRET,
        rawBody,
        headers['x-service-signature-v2'] as string,
        headers['x-service-timestamp'] as string,
      ),
    ).toBe(true);
    const update = JSON.parse(rawBody.toString('utf8'));
    expect(headers['x-service-update-id']).toBe(update.update_id);
    expect(update).toMatchObject({
      update_id: row.update_id,
      type: 'message',
      bot_id: bot.botId,
      message: { text: 'hello webhook', chat: { id: bot.chatId } },
    });
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1 });

    const list = await deliveryConsole(bot);
    expect(list.body.data).toMatchObject({
      total: 1,
      items: [{ update_id: row.update_id, status: 'succeeded', attempts: 1, dead_letter_at: null, last_error: null }],
    });
    const info = await callBot(ctx, bot.token, 'getWebhookInfo').expect(200);
    expect(info.body.data).toMatchObject({ pending_update_count: 0, last_error_date: null });
    // Delivered by webhook counts as confirmed: polling later must not hand it out again.
    const [update_row] = await db().query(`SELECT acknowledged FROM updates WHERE update_id = $1`, [row.update_id]);
    expect(update_row.acknowledged).toBe(true);
  });

  it('ends in dead_letter after 5 failed attempts, each recorded with status code, latency and error', async () => {
    const bot = await hookBot('dead');
    answers.set('dead', () => 500);
    await say(bot, 'never accepted');
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'dead_letter');
    await quietPeriod(300, 'a dead letter gets no sixth attempt');
    expect(row.attempts).toBe(5);
    expect(requestsOf('dead')).toHaveLength(5);
    expect(new Set(requestsOf('dead').map((r) => r.headers['x-service-update-id']))).toEqual(new Set([row.update_id]));

    const one = await deliveryConsole(bot, `/${row.update_id}`);
    expect(one.body.data).toMatchObject({
      update_id: row.update_id,
      status: 'dead_letter',
      attempts: 5,
      dead_letter_at: expect.any(String),
      last_error: expect.stringContaining('WEBHOOK_DELIVER_FAILED'),
    });
    expect(one.body.data.attempt_log).toHaveLength(5);
    one.body.data.attempt_log.forEach((attempt: Record<string, unknown>, i: number) =>
      expect(attempt).toMatchObject({
        series: 1,
        attempt: i + 1,
        status_code: 500,
        error: 'HTTP 500',
        latency_ms: expect.any(Number),
      }),
    );
    const dead = await deliveryConsole(bot, '?status=dead_letter');
    expect(dead.body.data.total).toBe(1);
    const info = await callBot(ctx, bot.token, 'getWebhookInfo').expect(200);
    expect(info.body.data).toMatchObject({ last_error_message: 'HTTP 500', last_error_date: expect.any(Number) });

    // Manual redelivery, even after the Update left the getUpdates retention: the delivery keeps its copy.
    const firstBody = requestsOf('dead')[0].rawBody;
    await db().query(`DELETE FROM updates WHERE update_id = $1`, [row.update_id]);
    answers.set('dead', () => 200);
    const again = await deliveryConsole(bot, `/${row.update_id}/redeliver`, 'post');
    expect(again.body.data).toMatchObject({ status: 'pending', series: 2, attempts: 0, dead_letter_at: null });
    const [redelivered] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    expect(redelivered).toMatchObject({ series: 2, attempts: 1 });
    expect(requestsOf('dead')).toHaveLength(6);
    expect(requestsOf('dead')[5].headers['x-service-update-id']).toBe(row.update_id);
    expect(requestsOf('dead')[5].rawBody.equals(firstBody)).toBe(true);
    const log = await deliveryConsole(bot, `/${row.update_id}`);
    expect(log.body.data.attempt_log.at(-1)).toMatchObject({ series: 2, attempt: 1, status_code: 200, error: null });
  });

  it('ends succeeded with 3 attempts when the receiver fails twice, then answers 2xx', async () => {
    const bot = await hookBot('flaky');
    answers.set('flaky', (_req, index) => (index < 2 ? 502 : 204));
    await say(bot, 'third time lucky');
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    expect(row.attempts).toBe(3);
    const one = await deliveryConsole(bot, `/${row.update_id}`);
    expect(one.body.data.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([502, 502, 204]);
  });

  it('counts no answer within WEBHOOK_TIMEOUT_MS as a failed attempt', async () => {
    const bot = await hookBot('slow');
    answers.set('slow', (_req, index) => (index === 0 ? { status: 200, delayMs: TIMEOUT_MS * 3 } : 200));
    await say(bot, 'answer late');
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    expect(row.attempts).toBe(2);
    const one = await deliveryConsole(bot, `/${row.update_id}`);
    expect(one.body.data.attempt_log[0]).toMatchObject({
      status_code: null,
      error: `no response within ${TIMEOUT_MS} ms`,
    });
  });

  it('redelivers every dead letter in bulk, and only those within since/until', async () => {
    const bot = await hookBot('bulk');
    answers.set('bulk', () => 503);
    await say(bot, 'first');
    await say(bot, 'second');
    await waitForDeliveries(bot, (rows) => rows.length === 2 && rows.every((r) => r.status === 'dead_letter'));
    answers.set('bulk', () => 200);

    const none = await deliveryConsole(bot, '/redeliver', 'post', {
      status: 'dead_letter',
      until: '2001-01-01T00:00:00Z',
    });
    expect(none.body.data).toEqual({ redelivered: 0 });
    const all = await deliveryConsole(bot, '/redeliver', 'post', {
      status: 'dead_letter',
      since: '2001-01-01T00:00:00Z',
    });
    expect(all.body.data).toEqual({ redelivered: 2 });
    const rows = await waitForDeliveries(bot, (list) => list.every((r) => r.status === 'succeeded'));
    expect(rows.map((r) => r.series)).toEqual([2, 2]);
    expect(requestsOf('bulk')).toHaveLength(12);
  });

  it('keeps at most max_connections POSTs open to a bot, without counting the wait as an attempt', async () => {
    const bot = await hookBot('narrow', { max_connections: 1 });
    let open = 0;
    let peak = 0;
    answers.set('narrow', () => {
      open++;
      peak = Math.max(peak, open);
      // The window closes just before the answer is written.
      setTimeout(() => open--, 140);
      return { status: 200, delayMs: 150 };
    });
    await Promise.all(['m1', 'm2', 'm3', 'm4'].map((text) => say(bot, text)));
    const rows = await waitForDeliveries(
      bot,
      (list) => list.length === 4 && list.every((r) => r.status === 'succeeded'),
    );
    expect(rows.map((r) => r.attempts)).toEqual([1, 1, 1, 1]);
    expect(requestsOf('narrow')).toHaveLength(4);
    expect(peak).toBe(1);
  });

  it('never connects when no resolved address is in allowed_ips, and records why', async () => {
    const bot = await hookBot('fenced', { allowed_ips: ['203.0.113.7'] });
    await say(bot, 'fenced off');
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.attempts >= 1);
    expect(requestsOf('fenced')).toHaveLength(0);
    const one = await deliveryConsole(bot, `/${row.update_id}`);
    expect(one.body.data.attempt_log[0]).toMatchObject({
      status_code: null,
      error: expect.stringContaining('allowed_ips'),
    });
    const info = await callBot(ctx, bot.token, 'getWebhookInfo').expect(200);
    expect(info.body.data.last_error_message).toContain('allowed_ips');
    expect(info.body.data.allowed_ips).toEqual(['203.0.113.7']);
  });

  it('delivers through the sweeper a pending delivery whose job never reached Redis', async () => {
    const bot = await hookBot('swept');
    const payload = { type: 'message', bot_id: bot.botId, message: { message_id: 1, text: 'from the outbox only' } };
    // What bot-api commits when Redis is unreachable: the Update and its delivery, but no job.
    const [update] = await db().query(
      `WITH id AS (SELECT gen_random_uuid() AS update_id)
       INSERT INTO updates (update_id, bot_id, type, payload)
       SELECT update_id, $1, 'message', $2::jsonb || jsonb_build_object('update_id', update_id) FROM id
       RETURNING update_seq, update_id, payload`,
      [bot.botId, JSON.stringify(payload)],
    );
    await db().query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
       VALUES ($1, $2, $3, 'message', $4)`,
      [bot.botId, update.update_seq, update.update_id, JSON.stringify(update.payload)],
    );
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    expect(row.update_id).toBe(update.update_id);
    expect(requestsOf('swept')).toHaveLength(1);
    expect(requestsOf('swept')[0].headers['x-service-update-id']).toBe(update.update_id);
    expect(JSON.parse(requestsOf('swept')[0].rawBody.toString('utf8'))).toMatchObject({
      update_id: update.update_id,
      message: { text: 'from the outbox only' },
    });
  });

  it('delivers through the sweeper an Update of a webhook bot that has no delivery row', async () => {
    const bot = await hookBot('orphan');
    // An Update committed while a concurrent setWebhook switched the mode: written without a delivery.
    const [update] = await db().query(
      `WITH id AS (SELECT gen_random_uuid() AS update_id)
       INSERT INTO updates (update_id, bot_id, type, payload)
       SELECT update_id, $1::varchar, 'message', jsonb_build_object('update_id', update_id, 'type', 'message', 'bot_id', $1::varchar)
         FROM id
       RETURNING update_id`,
      [bot.botId],
    );
    const [row] = await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    expect(row.update_id).toBe(update.update_id);
    expect(requestsOf('orphan').map((r) => r.headers['x-service-update-id'])).toEqual([update.update_id]);
  });

  it('stops POSTing after deleteWebhook, and getUpdates works again', async () => {
    const bot = await hookBot('unhooked');
    await callBot(ctx, bot.token, 'getUpdates', {}).expect(409);
    await say(bot, 'while hooked');
    await waitForDeliveries(bot, (rows) => rows[0]?.status === 'succeeded');
    await callBot(ctx, bot.token, 'deleteWebhook', {}).expect(200);
    await say(bot, 'after delete');
    await quietPeriod(800, 'nothing is POSTed after deleteWebhook');
    expect(requestsOf('unhooked')).toHaveLength(1);
    expect(await deliveries(bot.botId)).toHaveLength(1);
    const polled = await callBot(ctx, bot.token, 'getUpdates', {}).expect(200);
    expect(polled.body.data.map((u: { message: { text: string } }) => u.message.text)).toEqual(['after delete']);
  });

  it('finishes the in-flight POST and records it when the dispatcher gets SIGTERM', async () => {
    const bot = await hookBot('shutdown');
    answers.set('shutdown', () => ({ status: 200, delayMs: 300 }));
    await say(bot, 'mid-flight');
    await waitUntil(() => requestsOf('shutdown').length > 0, 'the POST reaches the receiver', 10_000);
    // SIGTERM while the receiver is still answering: the worker waits for the attempt to finish.
    await dispatcher.stop();
    const rows = await deliveries(bot.botId);
    expect(rows[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });
});
