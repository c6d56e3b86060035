import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  describeEachBackend,
  HttpsReceiver,
  quietPeriod,
  ReceivedRequest,
  ReceiverAnswer,
  startHttpsReceiver,
  waitUntil,
} from '@app/testing';
import { standardWebhookSecret, verifyWebhookSignatureV1, verifyWebhookSignatureV2 } from '@app/bot-delivery';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';

const SECRET = 'hook_secret-1';
const RETRY_AFTER_CAP_MS = 2500;

interface HookBot extends ApprovedBot {
  tag: string;
  chatId: string;
}

interface Arrival {
  request: ReceivedRequest;
  at: number;
}

describeEachBackend('receivers that say "not now" or "go away", and secret rotation (issue 11)', (backend) => {
  let ctx: BotTestContext;
  let receiver: HttpsReceiver;
  let dispatcher: DispatcherProcess;
  let alice: string;
  const answers = new Map<string, (request: ReceivedRequest, index: number) => ReceiverAnswer>();
  const arrivals = new Map<string, Arrival[]>();

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    receiver.answer((req) => {
      const tag = new URL(req.path, 'https://x').searchParams.get('bot') ?? '';
      const list = arrivals.get(tag) ?? [];
      list.push({ request: req, at: Date.now() });
      arrivals.set(tag, list);
      return answers.get(tag)?.(req, list.length - 1) ?? 200;
    });
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', COORDINATION_BACKEND: backend });
    dispatcher = await startDispatcher(ctx, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CA_FILE: receiver.caFile,
      WEBHOOK_TIMEOUT_MS: '1000',
      DELIVERY_RETRY_DELAYS_MS: '20,20,20,20',
      DELIVERY_SWEEP_INTERVAL_MS: '200',
      DELIVERY_SWEEP_GRACE_MS: '500',
      WEBHOOK_RETRY_AFTER_MAX_MS: String(RETRY_AFTER_CAP_MS),
      WEBHOOK_GONE_PAUSE_AFTER: '3',
    });
    alice = await ctx.jwt('alice', 'Alice');
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await ctx?.close();
    await receiver?.close();
  });

  const db = () => ctx.app.get(DataSource);
  const arrivalsOf = (tag: string) => arrivals.get(tag) ?? [];
  const textOf = (arrival: Arrival) => JSON.parse(arrival.request.rawBody.toString('utf8')).message?.text;

  async function hookBot(tag: string, secret = SECRET): Promise<HookBot> {
    const bot = await createApprovedBot(ctx, `dev-${tag}`, { username: `${tag}_bot` });
    await setWebhook(bot, tag, secret);
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', `Bearer ${alice}`)
      .send({ bot_id: bot.botId })
      .expect(201);
    return { ...bot, tag, chatId: chat.body.data.id };
  }

  function setWebhook(bot: ApprovedBot, tag: string, secret: string) {
    return callBot(ctx, bot.token, 'setWebhook', { url: `${receiver.url}?bot=${tag}`, secret_token: secret }).expect(
      200,
    );
  }

  function say(bot: HookBot, text: string) {
    return request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${bot.chatId}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text })
      .expect(201);
  }

  async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
    await waitUntil(check, what, timeoutMs).catch((error: Error) => {
      throw new Error(`${error.message}\n${dispatcher.output()}`);
    });
  }

  async function deliveryRows(botId: string): Promise<Array<{ status: string; attempts: number; last_error: string }>> {
    return db().query(
      `SELECT status, attempts, last_error FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq`,
      [botId],
    );
  }

  const info = async (bot: ApprovedBot) => (await callBot(ctx, bot.token, 'getWebhookInfo').expect(200)).body.data;

  it("waits at least a 429's Retry-After seconds before the retry and before the bot's other deliveries", async () => {
    const bot = await hookBot('slowdown');
    answers.set('slowdown', (_req, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : 200));
    await say(bot, 'first');
    // The pause starts once the 429 is recorded; a delivery already on its way is not called back.
    await waitFor(async () => (await deliveryRows(bot.botId))[0]?.status === 'retrying', 'the recorded 429');
    await say(bot, 'second');
    await waitFor(() => arrivalsOf('slowdown').length === 3, 'the retry and the second message', 15_000);
    const [refused, ...later] = arrivalsOf('slowdown');
    for (const arrival of later) expect(arrival.at - refused.at).toBeGreaterThanOrEqual(1900);
    expect(later.map(textOf).sort()).toEqual(['first', 'second']);
    await waitFor(async () => (await deliveryRows(bot.botId)).every((r) => r.status === 'succeeded'), 'success');
  });

  it("reads a 503's Retry-After as an HTTP date and caps a far one at WEBHOOK_RETRY_AFTER_MAX_MS", async () => {
    const bot = await hookBot('unavailable');
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    answers.set('unavailable', (_req, index) =>
      index === 0 ? { status: 503, headers: { 'retry-after': inAnHour } } : 200,
    );
    await say(bot, 'later please');
    await waitFor(() => arrivalsOf('unavailable').length === 2, 'the capped retry', 15_000);
    const [refused, retried] = arrivalsOf('unavailable');
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(RETRY_AFTER_CAP_MS - 100);
    expect(retried.at - refused.at).toBeLessThan(RETRY_AFTER_CAP_MS + 4000);
  });

  it('turns a delivery answered 410 Gone into a dead letter at once, saying why', async () => {
    const bot = await hookBot('gone');
    answers.set('gone', () => 410);
    await say(bot, 'anyone there?');
    await waitFor(async () => (await deliveryRows(bot.botId))[0]?.status === 'dead_letter', 'the dead letter');
    const [row] = await deliveryRows(bot.botId);
    expect(row).toMatchObject({ attempts: 1, last_error: expect.stringContaining('410 Gone') });
    expect(row.last_error).toMatch(/^WEBHOOK_DELIVER_FAILED/);
    await quietPeriod(300, 'a delivery answered 410 Gone is not tried again');
    expect(arrivalsOf('gone')).toHaveLength(1);
    expect((await info(bot)).last_error_message).toBe('HTTP 410');
  });

  it('pauses the webhook after 3 consecutive 410s, keeps delivery_mode webhook, and resumes on setWebhook', async () => {
    const bot = await hookBot('retired');
    answers.set('retired', () => 410);
    for (const text of ['g1', 'g2', 'g3']) await say(bot, text);
    await waitFor(async () => (await info(bot)).last_error_message?.startsWith('webhook paused'), 'the pause');
    expect((await info(bot)).last_error_message).toBe(
      'webhook paused: 3 consecutive deliveries were answered 410 Gone; set the webhook again to resume',
    );
    const [mode] = await db().query(`SELECT delivery_mode FROM bot_delivery_settings WHERE bot_id = $1`, [bot.botId]);
    expect(mode.delivery_mode).toBe('webhook');

    answers.set('retired', () => 200);
    await say(bot, 'while paused');
    await quietPeriod(1500, 'a paused webhook POSTs nothing');
    expect(arrivalsOf('retired').map(textOf)).not.toContain('while paused');
    expect((await deliveryRows(bot.botId)).at(-1)).toMatchObject({ status: 'pending', attempts: 0 });
    const backlog = await request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/my/${bot.botId}/deliveries/backlog`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-retired')}`)
      .expect(200);
    expect(backlog.body.data).toEqual({ pending: 1, retrying: 0, dead_letter: 3, total: 4 });

    await setWebhook(bot, 'retired', SECRET);
    await waitFor(() => arrivalsOf('retired').map(textOf).includes('while paused'), 'delivery after setWebhook');
    await waitFor(async () => (await info(bot)).pending_update_count === 0, 'nothing pending');
  });

  it('signs with the old and the new secret during the overlap: a receiver holding either verifies every request', async () => {
    const bot = await hookBot('rotating', 'old_secret-1');
    await setWebhook(bot, 'rotating', 'new_secret-2');
    const rotated = await info(bot);
    const expectedExpiry = Date.now() / 1000 + 24 * 3600;
    expect(Math.abs(rotated.previous_secret_expires_at - expectedExpiry)).toBeLessThan(60);

    for (const text of ['r1', 'r2', 'r3']) await say(bot, text);
    await waitFor(() => arrivalsOf('rotating').length === 3, 'three deliveries');
    for (const { request: req } of arrivalsOf('rotating')) {
      const h = req.headers as Record<string, string>;
      // A receiver that still holds only the old secret:
      expect(verifyWebhookSignatureV1('old_secret-1', req.rawBody, h['x-service-signature-previous'])).toBe(true);
      expect(
        verifyWebhookSignatureV2(
          'old_secret-1',
          req.rawBody,
          h['x-service-signature-v2-previous'],
          h['x-service-timestamp'],
        ),
      ).toBe(true);
      // One that already holds only the new secret:
      expect(verifyWebhookSignatureV1('new_secret-2', req.rawBody, h['x-service-signature'])).toBe(true);
      expect(
        verifyWebhookSignatureV2('new_secret-2', req.rawBody, h['x-service-signature-v2'], h['x-service-timestamp']),
      ).toBe(true);
      // And Standard Webhooks receivers with either secret, unchanged:
      for (const secret of ['old_secret-1', 'new_secret-2']) {
        expect(() => new StandardWebhook(standardWebhookSecret(secret)).verify(req.rawBody, h)).not.toThrow();
      }
    }

    // Setting the same secret again keeps the overlap; deleteWebhook ends it.
    await setWebhook(bot, 'rotating', 'new_secret-2');
    expect((await info(bot)).previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    await callBot(ctx, bot.token, 'deleteWebhook').expect(200);
    expect((await info(bot)).previous_secret_expires_at).toBeNull();
  });

  it('signs with the new secret alone once the overlap has ended', async () => {
    const bot = await hookBot('rotated', 'old_secret-1');
    await setWebhook(bot, 'rotated', 'new_secret-2');
    await db().query(
      `UPDATE bot_delivery_settings SET webhook_previous_secret_expires_at = now() - interval '1 second' WHERE bot_id = $1`,
      [bot.botId],
    );
    expect((await info(bot)).previous_secret_expires_at).toBeNull();
    await say(bot, 'after the overlap');
    await waitFor(() => arrivalsOf('rotated').length === 1, 'the delivery');
    const h = arrivalsOf('rotated')[0].request.headers as Record<string, string>;
    expect(h['x-service-signature-previous']).toBeUndefined();
    expect(h['webhook-signature'].split(' ')).toHaveLength(1);
    expect(
      verifyWebhookSignatureV1('new_secret-2', arrivalsOf('rotated')[0].request.rawBody, h['x-service-signature']),
    ).toBe(true);
  });
});
