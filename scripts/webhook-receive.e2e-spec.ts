import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { eventually, freePort } from '@app/testing';
import { signWebhook } from '@app/bot-delivery';
import { BotTestContext, callBot, createApprovedBot, startBotApp } from '../apps/bot-api/test/app-context';
import { DispatcherProcess, startDispatcher } from '../apps/bot-api/test/dispatcher-process';
import { CommandProcess, startCommand } from './e2e-support';

const SECRET = 'receiver_e2e-secret';

/** POSTs to the receiver as the dispatcher would, but signed with `secret`; resolves the status. */
function postSigned(port: number, caFile: string, secret: string, body: object): Promise<number> {
  const raw = Buffer.from(JSON.stringify(body));
  const signed = signWebhook(secret, raw, Math.floor(Date.now() / 1000));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `https://127.0.0.1:${port}/hook`,
      {
        method: 'POST',
        ca: readFileSync(caFile),
        headers: {
          'content-type': 'application/json',
          'x-service-signature': signed.v1,
          'x-service-signature-v2': signed.v2,
          'x-service-timestamp': signed.timestamp,
          'x-service-update-id': String((body as { update_id?: string }).update_id),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end(raw);
  });
}

describe('npm run webhook:receive as the webhook receiver of a real bot', () => {
  let certDir: string;
  let port: number;
  let receiver: CommandProcess;
  let ctx: BotTestContext;
  let dispatcher: DispatcherProcess;

  beforeAll(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'webhook-receive-'));
    port = await freePort();
    receiver = startCommand(
      'npm',
      ['run', '--silent', 'webhook:receive', '--', '--port', String(port), '--secret', SECRET],
      { WEBHOOK_RECEIVER_CERT_DIR: join(certDir, 'dev') },
    );
    await receiver.waitForOutput(/Receiving webhooks on https:\/\/127\.0\.0\.1:\d+\//, 30_000);
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    dispatcher = await startDispatcher(ctx, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CA_FILE: join(certDir, 'dev', 'cert.pem'),
    });
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await dispatcher?.stop();
    await ctx?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('receives, verifies and prints a delivered Update, and the delivery succeeds', async () => {
    const bot = await createApprovedBot(ctx, 'dev-receiver', { username: 'receiver_bot' });
    await callBot(ctx, bot.token, 'setWebhook', {
      url: `https://127.0.0.1:${port}/hook`,
      secret_token: SECRET,
    }).expect(200);
    const alice = `Bearer ${await ctx.jwt('alice', 'Alice')}`;
    const chat = await request(ctx.app.getHttpServer())
      .post('/api/v1/bots/client/chats/private')
      .set('Authorization', alice)
      .send({ bot_id: bot.botId })
      .expect(201);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chat.body.data.id}/messages`)
      .set('Authorization', alice)
      .send({ text: 'hello, local receiver' })
      .expect(201);

    const [, updateId] = await receiver.waitForOutput(/✓ \/hook verified Update (\S+) \(message\)/);
    await receiver.waitForOutput(/"text": "hello, local receiver"/);

    const owner = `Bearer ${await ctx.jwt('dev-receiver')}`;
    await eventually(
      async () => {
        const delivery = await request(ctx.app.getHttpServer())
          .get(`/api/v1/bots/my/${bot.botId}/deliveries/${updateId}`)
          .set('Authorization', owner)
          .expect(200);
        expect(delivery.body.data.status).toBe('succeeded');
      },
      5000,
      100,
    );
  });

  it('answers 401 to a request signed with another secret and says why', async () => {
    const status = await postSigned(port, join(certDir, 'dev', 'cert.pem'), 'not-the-secret', {
      update_id: 'forged-1',
      type: 'message',
    });
    expect(status).toBe(401);
    await receiver.waitForOutput(/✗ POST \/hook answered 401: X-Service-Signature does not match/);
    expect(receiver.output()).not.toContain('forged-1');
  });
});
