import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bot as GrammyBot, webhookCallback } from 'grammy';
import { testCertificate } from '@app/testing';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import { DispatcherProcess, startDispatcher } from './dispatcher-process';
import { listenForFrameworks, until } from './telegram-support';

const SECRET = 'tg_hook_secret-7';

describe('Telegram face: webhooks in Telegram format through the dispatcher', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let dispatcher: DispatcherProcess;
  let server: Server;
  let hookUrl: string;
  let apiRoot: string;
  let alice: string;
  let chatUuid: string;
  let caFile: string;
  /** Telegram Updates as grammY's webhookCallback handed them to the bot's middleware. */
  const updates: Array<Record<string, unknown>> = [];
  /** X-Telegram-Bot-Api-Secret-Token of every request to the grammY endpoint. */
  const secrets: Array<string | undefined> = [];
  const native: Array<{ secret: string | undefined; body: Record<string, unknown> }> = [];

  beforeAll(async () => {
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { name: 'Hook Bot', username: 'hook_tg_bot' });

    const grammy = new GrammyBot(bot.token, { client: { apiRoot } });
    grammy.use((c, next) => {
      updates.push(c.update as unknown as Record<string, unknown>);
      return next();
    });
    grammy.on('message:text', (c) => c.reply(`hooked: ${c.message.text}`));
    const handle = webhookCallback(grammy, 'http', { secretToken: SECRET });
    const { cert, key, certFile } = testCertificate();
    caFile = certFile;
    server = createServer({ cert, key }, (req, res) => {
      const secret = req.headers['x-telegram-bot-api-secret-token'] as string | undefined;
      if (!req.url?.includes('native=1')) {
        secrets.push(secret);
        void handle(req, res);
        return;
      }
      // The native receiver: records the body as it came and accepts it.
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        native.push({ secret, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `https://localhost:${(server.address() as AddressInfo).port}/tg`;
    dispatcher = await startDispatcher(ctx, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CA_FILE: caFile,
      DELIVERY_RETRY_DELAYS_MS: '50,50,50,50',
      DELIVERY_SWEEP_INTERVAL_MS: '200',
    });
    alice = await ctx.jwt('alice', 'Alice');
    chatUuid = await openPrivateChat(ctx, alice, bot.botId);
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
  });

  it("delivers Telegram Updates with the secret header to grammY's webhookCallback, whose reply reaches the client", async () => {
    const api = new GrammyBot(bot.token, { client: { apiRoot } }).api;
    await api.setWebhook(hookUrl, {
      secret_token: SECRET,
      allowed_updates: ['message', 'callback_query'],
      max_connections: 5,
    });
    const info = await api.getWebhookInfo();
    expect(info).toMatchObject({ url: hookUrl, max_connections: 5, allowed_updates: ['message', 'callback_query'] });

    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatUuid}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'over the hook' })
      .expect(201);
    const reply = await until(async () => {
      const page = await request(ctx.app.getHttpServer())
        .get(`/api/v1/bots/client/chats/${chatUuid}/messages`)
        .set('Authorization', `Bearer ${alice}`)
        .expect(200);
      return (page.body.data.items as Array<{ text: string }>).find((m) => m.text === 'hooked: over the hook');
    }, 15_000);
    expect(reply).toBeDefined();
    const delivered = updates.find((u) => (u.message as { text?: string } | undefined)?.text === 'over the hook');
    expect(Number.isSafeInteger(delivered?.update_id)).toBe(true);
    expect(delivered).not.toHaveProperty('bot_id');
    expect(delivered?.message).toMatchObject({ chat: { id: expect.any(Number), type: 'private' } });
    expect(secrets.length).toBeGreaterThan(0);
    expect(secrets.every((secret) => secret === SECRET)).toBe(true);

    // getUpdates is refused while the webhook is set, in Telegram's words.
    const refused = await request(ctx.app.getHttpServer())
      .post(`/telegram/bot${bot.token}/getUpdates`)
      .send({})
      .expect(409);
    expect(refused.body.description).toBe(
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  });

  it('sends native Updates again once the webhook is set through the native API', async () => {
    await callBot(ctx, bot.token, 'setWebhook', { url: `${hookUrl}?native=1`, secret_token: SECRET }).expect(200);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chatUuid}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'native again' })
      .expect(201);
    const arrived = await until(
      async () => native.find((r) => (r.body.message as { text?: string } | undefined)?.text === 'native again'),
      15_000,
    );
    expect(arrived.secret).toBeUndefined();
    expect(arrived.body).toMatchObject({ type: 'message', bot_id: bot.botId, update_id: expect.any(String) });
    await callBot(ctx, bot.token, 'deleteWebhook', {}).expect(200);
  });
});
