import { HttpsReceiver, quietPeriod, startHttpsReceiver } from '@app/testing';
import { standardWebhookSecret, verifyWebhookSignatureV1, verifyWebhookSignatureV2 } from '@app/bot-delivery';
import { verify as verifyGitHubStyle } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import type { IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { WebhookSender, WebhookTarget } from '../src/delivery/webhook-sender';

const SECRET = 'receiver_secret-1';
const UPDATE_ID = '6f1c1f43-93a1-4f4e-9d33-5a2b7d1c0e11';

describe('webhook POST path (real HTTPS receiver)', () => {
  let receiver: HttpsReceiver;
  let sender: WebhookSender;
  let ca: string;
  let bots = 0;

  const target = (overrides: Partial<WebhookTarget> = {}): WebhookTarget => ({
    botId: `bot-${++bots}`,
    url: receiver.url,
    secret: SECRET,
    allowedIps: null,
    maxConnections: 40,
    ...overrides,
  });
  const body = (text = 'hi') => Buffer.from(JSON.stringify({ update_id: UPDATE_ID, type: 'message', text }), 'utf8');

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    ca = readFileSync(receiver.caFile, 'utf8');
    // Generous: a first TLS handshake on a loaded CI box can take longer than the timeout test's 400 ms.
    sender = new WebhookSender({ timeoutMs: 10_000, allowPrivate: true, ca });
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answer(() => 200);
  });
  afterAll(async () => {
    await sender.close();
    await receiver.close();
  });

  it('POSTs the exact signed bytes with V1 and V2 signatures, timestamp, update id and JSON content type', async () => {
    const raw = body('exact bytes ✓');
    const result = await sender.send(target(), raw, UPDATE_ID);
    expect(result).toEqual({ ok: true, statusCode: 200, latencyMs: expect.any(Number), error: null });
    const [request] = await receiver.waitFor(1);
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook');
    expect(request.rawBody.equals(raw)).toBe(true);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-update-id']).toBe(UPDATE_ID);
    const timestamp = request.headers['x-service-timestamp'] as string;
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyWebhookSignatureV1(SECRET, request.rawBody, request.headers['x-service-signature'] as string)).toBe(
      true,
    );
    expect(
      verifyWebhookSignatureV2(SECRET, request.rawBody, request.headers['x-service-signature-v2'] as string, timestamp),
    ).toBe(true);
    expect(
      verifyWebhookSignatureV1('other-secret', request.rawBody, request.headers['x-service-signature'] as string),
    ).toBe(false);
  });

  it('adds Standard Webhooks headers that the standardwebhooks and svix libraries verify, and V1 passes @octokit/webhooks-methods', async () => {
    const raw = body('standard ✓');
    await sender.send(target(), raw, UPDATE_ID);
    const [{ rawBody, headers }] = await receiver.waitFor(1);
    expect(headers['webhook-id']).toBe(UPDATE_ID);
    expect(headers['webhook-timestamp']).toBe(headers['x-service-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifiesWithEveryLibrary(SECRET, rawBody, headers)).toEqual({ standardwebhooks: true, svix: true });
    expect(await verifyGitHubStyle(SECRET, rawBody.toString('utf8'), headers['x-service-signature'] as string)).toBe(
      true,
    );
    // The raw form of the key is accepted too, and a wrong secret is refused by every library.
    expect(() => new StandardWebhook(SECRET, { format: 'raw' }).verify(rawBody, stringHeaders(headers))).not.toThrow();
    expect(verifiesWithEveryLibrary('not-the-secret', rawBody, headers)).toEqual({
      standardwebhooks: false,
      svix: false,
    });
  });

  it('signs with both secrets while a rotation overlaps: a receiver holding only one of them verifies every request', async () => {
    const bot = target({ secret: 'new_secret-2', previousSecret: SECRET });
    for (let i = 0; i < 3; i++) expect((await sender.send(bot, body(`rotating ${i}`), UPDATE_ID)).ok).toBe(true);
    const requests = await receiver.waitFor(3);
    for (const { rawBody, headers } of requests) {
      expect((headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
      for (const secret of ['new_secret-2', SECRET]) {
        expect(verifiesWithEveryLibrary(secret, rawBody, headers)).toEqual({ standardwebhooks: true, svix: true });
      }
      const timestamp = headers['x-service-timestamp'] as string;
      expect(verifyWebhookSignatureV1('new_secret-2', rawBody, headers['x-service-signature'] as string)).toBe(true);
      expect(
        verifyWebhookSignatureV2('new_secret-2', rawBody, headers['x-service-signature-v2'] as string, timestamp),
      ).toBe(true);
      expect(verifyWebhookSignatureV1(SECRET, rawBody, headers['x-service-signature-previous'] as string)).toBe(true);
      expect(
        verifyWebhookSignatureV2(SECRET, rawBody, headers['x-service-signature-v2-previous'] as string, timestamp),
      ).toBe(true);
      expect(
        await verifyGitHubStyle(SECRET, rawBody.toString('utf8'), headers['x-service-signature-previous'] as string),
      ).toBe(true);
    }
  });

  it('reuses keep-alive connections for consecutive deliveries to the same bot', async () => {
    const bot = target();
    for (let i = 0; i < 6; i++) await sender.send(bot, body(`n${i}`), UPDATE_ID);
    const requests = await receiver.waitFor(6);
    // undici may open a second connection while the first is being returned to the pool; never one per request.
    expect(new Set(requests.map((r) => r.socketId)).size).toBeLessThanOrEqual(2);
  });

  it('reports a non-2xx answer as a failure with its status code', async () => {
    receiver.answer(() => 503);
    const result = await sender.send(target(), body(), UPDATE_ID);
    expect(result).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503' });
  });

  it('counts no answer within the timeout as a failure without a status code', async () => {
    receiver.answer(() => ({ status: 200, delayMs: 1500 }));
    const impatient = new WebhookSender({ timeoutMs: 400, allowPrivate: true, ca });
    try {
      const result = await impatient.send(target(), body(), UPDATE_ID);
      expect(result).toMatchObject({ ok: false, statusCode: null, error: 'no response within 400 ms' });
      expect(result.latencyMs).toBeGreaterThanOrEqual(350);
      expect(result.latencyMs).toBeLessThan(1400);
    } finally {
      await impatient.close();
    }
  });

  it('never connects when no resolved address of the host is in allowed_ips, and says why', async () => {
    const byName = await sender.send(target({ allowedIps: ['203.0.113.7'] }), body(), UPDATE_ID);
    const byAddress = await sender.send(
      target({ url: receiver.ipUrl, allowedIps: ['198.51.100.0/24'] }),
      body(),
      UPDATE_ID,
    );
    for (const result of [byName, byAddress]) {
      expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('allowed_ips') });
      // Security defect 6: the reason reaches the developer and must not map internal DNS.
      expect(result.error).not.toMatch(/127\.0\.0\.1|::1/);
    }
    await quietPeriod(100, 'no connection reaches the receiver later either');
    expect(receiver.requests).toHaveLength(0);
  });

  it('connects to the resolved address in allowed_ips, keeping the host name for TLS', async () => {
    const result = await sender.send(target({ allowedIps: ['127.0.0.1/32'] }), body(), UPDATE_ID);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    const [request] = await receiver.waitFor(1);
    expect(request.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it('refuses loopback targets unless private addresses are allowed', async () => {
    const strict = new WebhookSender({ timeoutMs: 10_000, allowPrivate: false, ca });
    try {
      const byName = await strict.send(target(), body(), UPDATE_ID);
      const byAddress = await strict.send(target({ url: receiver.ipUrl }), body(), UPDATE_ID);
      for (const result of [byName, byAddress]) {
        expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('private') });
      }
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('rejects a receiver certificate that no trusted CA signed', async () => {
    const untrusting = new WebhookSender({ timeoutMs: 10_000, allowPrivate: true });
    try {
      const result = await untrusting.send(target(), body(), UPDATE_ID);
      expect(result).toMatchObject({ ok: false, statusCode: null });
      expect(result.error).toMatch(/certificate/i);
    } finally {
      await untrusting.close();
    }
  });

  it("keeps at most max_connections requests open to one bot's receiver", async () => {
    let open = 0;
    let peak = 0;
    receiver.answer(() => {
      open++;
      peak = Math.max(peak, open);
      // Closes the window just before the answer is written, so a reused connection is not counted twice.
      setTimeout(() => open--, 45);
      return { status: 200, delayMs: 50 };
    });
    const bot = target({ maxConnections: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => sender.send(bot, body(`n${i}`), UPDATE_ID)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBeLessThanOrEqual(2);
    expect(new Set(receiver.requests.map((r) => r.socketId)).size).toBeLessThanOrEqual(2);
  });
});

function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}

/** Whether each Standard Webhooks library accepts the request with `secretToken`, given as integrators are told to. */
function verifiesWithEveryLibrary(secretToken: string, rawBody: Buffer, headers: IncomingHttpHeaders) {
  const attempt = (verify: () => unknown) => {
    try {
      verify();
      return true;
    } catch {
      return false;
    }
  };
  const secret = standardWebhookSecret(secretToken);
  return {
    standardwebhooks: attempt(() => new StandardWebhook(secret).verify(rawBody, stringHeaders(headers))),
    svix: attempt(() => new SvixWebhook(secret).verify(rawBody, stringHeaders(headers))),
  };
}
