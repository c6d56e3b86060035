import { ApiError, voucherEnvelope } from '@app/envelope';
import { defaultTestBackend, testRateLimitStores, TestRateLimitStores } from '@app/testing';
import express, { type NextFunction, type Request, type Response } from 'express';
import { compactDecrypt, exportJWK, generateKeyPair } from 'jose';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { callPlaintext, sealToService, SealedUnit, startSealedUnit } from '../../test/sealed-unit-fixture';
import { RateLimiters } from '../rate-limits/rate-limiters';
import { sealedCallOf } from './sealed-call.marker';
import { SealedCallMiddleware } from './sealed-call.middleware';

/** What the logical route saw of the request the middleware turned into the call. */
let seen: Record<string, unknown> = {};
/** The request as the access line, written on `close`, sees it; handed to whoever awaits the next close. */
type Closed = { method: string; originalUrl: string; headers: IncomingHttpHeaders };
let onClose: ((closed: Closed) => void) | undefined;
const nextClose = () => new Promise<Closed>((resolve) => (onClose = resolve));
/** The method and path a layer mounted before the middleware sees as the answer leaves. */
let leaving: { method: string; originalUrl: string } | undefined;
/** Called when the logical route holds a call that asked it to hang (its body is {"hang":true}). */
let onHang: (() => void) | undefined;

describe('SealedCallMiddleware', () => {
  let unit: SealedUnit;
  let stores: TestRateLimitStores;
  let app: express.Express;

  beforeAll(async () => {
    unit = await startSealedUnit({ RATE_LIMITS: 'sealed=6', BODY_LIMIT: '2kb' });
    stores = testRateLimitStores(defaultTestBackend());
    const middleware = new SealedCallMiddleware(
      unit.service,
      new RateLimiters(await stores.replica(), unit.config),
      voucherEnvelope,
      unit.config,
    );
    app = express();
    app.set('trust proxy', true);
    app.use((req: Request, res: Response, next: NextFunction) => {
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      res.end = ((...args: unknown[]) => {
        leaving = { method: req.method, originalUrl: req.originalUrl };
        return end(...args);
      }) as Response['end'];
      res.on('close', () => onClose?.({ method: req.method, originalUrl: req.originalUrl, headers: req.headers }));
      next();
    });
    app.post('/sealed', (req: Request, res: Response, next: NextFunction) => {
      middleware.use(req, res, next).catch(next);
    });
    app.use((req: Request, res: Response) => {
      seen = {
        method: req.method,
        url: req.url,
        originalUrl: req.originalUrl,
        headers: req.headers,
        body: req.body,
        rawBody: (req as Request & { rawBody?: Buffer }).rawBody?.toString(),
        sealed: sealedCallOf(req) !== undefined,
      };
      if ((req.body as { hang?: boolean }).hang) return onHang?.();
      res.setHeader('X-Logical', 'yes');
      res.status(201).json({ ok: true });
    });
    app.use((error: ApiError, _req: Request, res: Response, _next: NextFunction) => {
      res
        .status(error.status ?? 500)
        .set(error.headers ?? {})
        .json({ code: error.code, message: error.message });
    });
  });
  afterAll(async () => {
    await stores.close();
    await unit.close();
  });

  const post = (address: string) => request(app).post('/sealed').set('X-Forwarded-For', address);

  it('turns a seal into its logical call and seals the answer to the caller', async () => {
    const answer = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
    const plaintext = await callPlaintext({ response_key: await exportJWK(answer.publicKey), body: '{"a":1}' });
    const res = await post('10.0.0.1')
      .set('Content-Type', 'application/jose')
      .send(await sealToService(plaintext));
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/api/v1/open-platform/vouchers/redeem',
      originalUrl: '/api/v1/open-platform/vouchers/redeem',
      body: { a: 1 },
      rawBody: '{"a":1}',
      sealed: true,
      headers: expect.objectContaining({
        authorization: 'Bearer sop_x',
        'idempotency-key': 'key-1',
        'content-type': 'application/json',
        'content-length': '7',
        // The outer headers that hold no secret stay with the logical call.
        'x-forwarded-for': '10.0.0.1',
      }),
    });
    expect((seen.headers as Record<string, string>)['transfer-encoding']).toBeUndefined();
    expect(res.status).toBe(200);
    // A layer mounted before the middleware sees the sealed route as the answer leaves.
    expect(leaving).toEqual({ method: 'POST', originalUrl: '/sealed' });
    expect(res.headers['content-type']).toBe('application/jose');
    expect(res.headers['x-logical']).toBeUndefined();
    const opened = JSON.parse(Buffer.from((await compactDecrypt(res.text, answer.privateKey)).plaintext).toString());
    expect(opened).toMatchObject({ status: 201, headers: { 'x-logical': 'yes' }, body: '{"ok":true}' });
  });

  it('puts no authorization or idempotency-key on the logical call when the seal holds none', async () => {
    const res = await post('10.0.0.8')
      .set('Content-Type', 'application/jose')
      .send(await sealToService(await callPlaintext({ headers: {} })));
    expect(res.status).toBe(200);
    expect(Object.keys(seen.headers as object)).not.toEqual(expect.arrayContaining(['authorization']));
    expect(Object.keys(seen.headers as object)).not.toEqual(expect.arrayContaining(['idempotency-key']));
  });

  it('frames the logical call by its own body: a chunked seal leaves no Transfer-Encoding on it', async () => {
    const server = app.listen(0);
    try {
      const seal = await sealToService(await callPlaintext({ body: '{"a":1}' }));
      const status = await new Promise<number>((resolve, reject) => {
        const client = http.request(
          {
            port: (server.address() as AddressInfo).port,
            method: 'POST',
            path: '/sealed',
            headers: { 'Content-Type': 'application/jose', 'X-Forwarded-For': '10.0.0.9' },
          },
          (res) => res.resume().on('end', () => resolve(res.statusCode!)),
        );
        client.on('error', reject);
        client.write(seal.slice(0, 10));
        client.end(seal.slice(10));
      });
      expect(status).toBe(200);
      const headers = seen.headers as Record<string, string>;
      expect([headers['transfer-encoding'], headers['content-length']]).toEqual([undefined, '7']);
    } finally {
      server.close();
    }
  });

  it('leaves the logical method and path and the outer headers to the access line once the answer is sent', async () => {
    const closing = nextClose();
    const res = await post('10.0.0.10')
      .set('Content-Type', 'application/jose')
      .set('User-Agent', 'outer-agent')
      .send(await sealToService(await callPlaintext()));
    expect(res.status).toBe(200);
    const closed = await closing;
    expect(closed).toMatchObject({
      method: 'POST',
      originalUrl: '/api/v1/open-platform/vouchers/redeem',
      headers: expect.objectContaining({ 'content-type': 'application/jose', 'user-agent': 'outer-agent' }),
    });
    expect(closed.headers.authorization).toBeUndefined();
    expect(closed.headers['idempotency-key']).toBeUndefined();
  });

  it('leaves the outer headers to the access line of a call whose client went away before its answer', async () => {
    const server = app.listen(0);
    try {
      const closing = nextClose();
      const hanging = new Promise<void>((resolve) => (onHang = resolve));
      const client = http.request({
        port: (server.address() as AddressInfo).port,
        method: 'POST',
        path: '/sealed',
        headers: { 'Content-Type': 'application/jose', 'X-Forwarded-For': '10.0.0.11', 'User-Agent': 'outer-agent' },
      });
      client.on('error', () => undefined);
      client.end(await sealToService(await callPlaintext({ body: '{"hang":true}' })));
      await hanging;
      client.destroy();
      const closed = await closing;
      expect(closed.headers).toEqual(
        expect.objectContaining({ 'content-type': 'application/jose', 'user-agent': 'outer-agent' }),
      );
      expect(closed.headers.authorization).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it('refuses a body that is not application/jose', async () => {
    const res = await post('10.0.0.2').set('Content-Type', 'application/json').send('{}');
    expect(res.body).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'A sealed call is sent as application/jose: one compact JWE',
    });
  });

  it('refuses a token or an idempotency key beside the seal, naming them', async () => {
    const both = await post('10.0.0.3')
      .set('Content-Type', 'application/jose')
      .set('Authorization', 'Bearer sop_x')
      .set('Idempotency-Key', 'k')
      .send('a.b.c.d.e');
    expect(both.body).toEqual({
      code: 'SEALED_REQUEST_MALFORMED',
      message: 'authorization and idempotency-key must travel inside the seal, never beside it',
    });
    const key = await post('10.0.0.3')
      .set('Content-Type', 'application/jose')
      .set('Idempotency-Key', 'k')
      .send('a.b.c.d.e');
    expect(key.body.message).toBe('idempotency-key must travel inside the seal, never beside it');
  });

  it('refuses a body above the limit as too large, and trims the seal it reads', async () => {
    const large = await post('10.0.0.4').set('Content-Type', 'application/jose').send('a'.repeat(3000));
    expect([large.status, large.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const plaintext = await callPlaintext();
    const padded = await post('10.0.0.4')
      .set('Content-Type', 'application/jose')
      .send(`\n ${await sealToService(plaintext)} \n`);
    expect(padded.status).toBe(200);
  });

  it('refuses a body it cannot read as malformed', async () => {
    const res = await post('10.0.0.5')
      .set('Content-Type', 'application/jose')
      .set('Content-Encoding', 'bogus')
      .send('x');
    expect(res.body).toEqual({ code: 'SEALED_REQUEST_MALFORMED', message: 'The sealed call could not be read' });
  });

  it('counts every call per client address and refuses those above the limit with Retry-After', async () => {
    const calls = [];
    for (let i = 0; i < 7; i++) calls.push(await post('10.0.0.6').set('Content-Type', 'text/plain').send('x'));
    expect(calls.slice(0, 6).map((r) => r.body.code)).toEqual(Array(6).fill('UNSUPPORTED_MEDIA_TYPE'));
    const refused = calls[6];
    expect([refused.status, refused.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(refused.body.message).toBe('Rate limit of 6 sealed calls per minute exceeded for this address');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-limit']).toBe('6');
    expect((await post('10.0.0.7').set('Content-Type', 'text/plain').send('x')).body.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});
