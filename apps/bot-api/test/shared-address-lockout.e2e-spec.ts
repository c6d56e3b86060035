import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import request from 'supertest';
import { REPO_ROOT } from '@app/testing';
import { BotsStore } from '../src/bots/bots.store';
import { ApprovedBot, BotTestContext, createApprovedBot, startBotApp } from './app-context';
import { diskStorage, pngOf, StorageUnderTest, uploadFile } from './file-uploads';

/** TRUST_PROXY_HOPS as the Kubernetes kit ships it for bot-api behind its ingress. */
function shippedHops(): string {
  const config = readFileSync(resolve(REPO_ROOT, 'k8s/bot-api/base/config.env'), 'utf8');
  const line = config.split('\n').find((l) => l.startsWith('TRUST_PROXY_HOPS='));
  if (!line) throw new Error('k8s/bot-api/base/config.env sets no TRUST_PROXY_HOPS');
  return line.slice('TRUST_PROXY_HOPS='.length).trim();
}

/**
 * One reverse proxy hop as the kit's ingress-nginx makes it with its default ConfigMap
 * (use-forwarded-headers off): whatever X-Forwarded-For a client wrote is replaced by the address the
 * proxy's connection came from, and the request goes to the app over a connection of its own.
 */
async function startIngress(appPort: number): Promise<{ server: Server; port: number }> {
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, 'x-forwarded-for': incoming.socket.remoteAddress ?? '' };
    const upstream = httpRequest(
      { host: '127.0.0.1', port: appPort, method: incoming.method, path: incoming.url, headers, agent: false },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(upstream);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

const junkToken = () =>
  `sbot_${randomBytes(48)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 43)}`;

/**
 * bot-api (in process, listening) behind one proxy hop, with the hops the kit ships; two clients on
 * loopback addresses of their own (127.0.0.2 and 127.0.0.3) call it through the proxy. The token cache is
 * off, so every token is looked up as on a replica that has not seen it.
 */
describe('a real credential is never refused for junk sent from its address, behind one proxy hop', () => {
  let storage: StorageUnderTest;
  let ctx: BotTestContext;
  let ingress: { server: Server; port: number };
  let bot: ApprovedBot;

  beforeAll(async () => {
    storage = await diskStorage();
    ctx = await startBotApp({
      TRUST_PROXY_HOPS: shippedHops(),
      BOT_TOKEN_CACHE_MS: '0',
      RATE_LIMITS: 'verify_token=5,file_transfer=5',
      ...storage.env,
    });
    await ctx.app.listen(0, '127.0.0.1');
    ingress = await startIngress((ctx.app.getHttpServer().address() as AddressInfo).port);
    bot = await createApprovedBot(ctx, 'dev-shared', { username: 'shared_address_bot' });
  });
  afterAll(async () => {
    await new Promise((closed) => ingress?.server.close(closed));
    await ctx?.close();
    await storage?.stop();
  });

  /** A call from `client` (its own loopback address) through the proxy. */
  const from = (client: string, method: string, path: string, headers: Record<string, string> = {}, body?: object) =>
    new Promise<Answer>((answered, failed) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: ingress.port,
          localAddress: client,
          agent: false,
          method,
          path,
          headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON: the bytes of a download
            }
            answered({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
          });
        },
      );
      req.on('error', failed);
      req.end(payload);
    });
  const getMe = (client: string, token: string) =>
    from(client, 'GET', '/api/v1/bots/getMe', { authorization: `Bearer ${token}` });

  it('answers a real bot token, native and Telegram face, from a client locked out by 31 made-up tokens, and from another client behind the same proxy (defect 2)', async () => {
    const [A, B] = ['127.0.0.2', '127.0.0.3'];
    const lookups = jest.spyOn(ctx.app.get(BotsStore), 'findByTokenHash');
    try {
      for (let guess = 0; guess < 30; guess++) {
        // What a client writes into X-Forwarded-For itself is dropped by the proxy.
        const res = await from(A, 'GET', '/api/v1/bots/getMe', {
          authorization: `Bearer ${junkToken()}`,
          'x-forwarded-for': `198.51.100.${guess}`,
        });
        expect({ guess, status: res.status }).toEqual({ guess, status: 401 });
      }
      const locked = await getMe(A, junkToken());
      expect({ status: locked.status, code: locked.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
      expect((await from(A, 'GET', `/bot${junkToken()}/getMe`)).status).toBe(429);
      // Made-up tokens never reached the token look-up.
      expect(lookups).not.toHaveBeenCalled();

      const fromA = await getMe(A, bot.token);
      expect({ status: fromA.status, bot: fromA.body.data?.bot_id }).toEqual({ status: 200, bot: bot.botId });
      const telegram = await from(A, 'GET', `/bot${bot.token}/getMe`);
      expect({ status: telegram.status, ok: telegram.body.ok }).toEqual({ status: 200, ok: true });

      // The other client is counted apart: its first made-up token is a plain 401.
      expect((await getMe(B, junkToken())).status).toBe(401);
      expect((await getMe(B, bot.token)).status).toBe(200);
    } finally {
      lookups.mockRestore();
    }
  });

  it('serves a token issued after a client was locked out at its first call from that client (defect 2)', async () => {
    const A = '127.0.0.8';
    for (let guess = 0; guess <= 30; guess++) await getMe(A, junkToken());
    expect((await getMe(A, junkToken())).status).toBe(429);
    const fresh = await createApprovedBot(ctx, 'dev-fresh', { username: 'fresh_bot' });
    expect((await getMe(A, fresh.token)).status).toBe(200);
    const rotated = await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/my/${fresh.botId}/token/rotate`)
      .set('Authorization', `Bearer ${await ctx.jwt('dev-fresh')}`)
      .expect(200);
    expect((await getMe(A, rotated.body.data.one_time_token as string)).status).toBe(200);
    expect((await getMe(A, fresh.token)).status).toBe(429);
  });

  it('bounds what made-up tokens cost the database: no look-up of their own, at most one load of current tokens per 250 ms (defect 2)', async () => {
    const store = ctx.app.get(BotsStore);
    const lookups = jest.spyOn(store, 'findByTokenHash');
    const loads = jest.spyOn(store, 'currentTokenHashPrefixes');
    try {
      const clients = ['127.0.0.9', '127.0.0.10', '127.0.0.11'];
      const startedAt = performance.now();
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, i) => getMe(clients[i % clients.length], junkToken())),
      );
      const elapsedMs = performance.now() - startedAt;
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
      expect(lookups).not.toHaveBeenCalled();
      expect(loads.mock.calls.length).toBeLessThanOrEqual(2 + Math.floor(elapsedMs / 250));
    } finally {
      lookups.mockRestore();
      loads.mockRestore();
    }
  });

  it("answers verifyToken for a real token from a client whose made-up tokens used up the address's budget (defect 2)", async () => {
    const [A, B] = ['127.0.0.4', '127.0.0.5'];
    const verify = (client: string, token: string) => from(client, 'POST', '/api/v1/bots/verifyToken', {}, { token });
    for (let call = 0; call < 5; call++) {
      const res = await verify(A, junkToken());
      expect({ call, status: res.status, valid: res.body.data?.valid }).toEqual({ call, status: 200, valid: false });
    }
    expect((await verify(A, junkToken())).status).toBe(429);
    const real = await verify(A, bot.token);
    expect({ status: real.status, data: real.body.data }).toEqual({
      status: 200,
      data: { valid: true, bot_id: bot.botId },
    });
    expect((await verify(B, junkToken())).body.data).toEqual({ valid: false });
  });

  it('serves a signed download URL to a client whose forged signatures used up the address’s file_transfer budget (defect 2)', async () => {
    const [A, B] = ['127.0.0.6', '127.0.0.7'];
    const { file } = await uploadFile(ctx, { bot: bot.token }, pngOf(2, 2), 'p.png', 'image/png');
    const signed = new URL(file.url);
    const forged = new URL(file.url);
    forged.searchParams.set('signature', randomBytes(32).toString('base64url'));
    for (let call = 0; call < 5; call++) {
      const res = await from(A, 'GET', `${forged.pathname}${forged.search}`);
      expect({ call, status: res.status, code: res.body.code }).toEqual({
        call,
        status: 403,
        code: 'FILE_URL_INVALID',
      });
    }
    expect((await from(A, 'GET', `${forged.pathname}${forged.search}`)).status).toBe(429);
    const download = await from(A, 'GET', `${signed.pathname}${signed.search}`);
    expect({ status: download.status, type: download.headers['content-type'] }).toEqual({
      status: 200,
      type: 'image/png',
    });
    expect((await from(B, 'GET', `${forged.pathname}${forged.search}`)).status).toBe(403);
  });
});
