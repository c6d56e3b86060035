import { ApiError, voucherEnvelope } from '@app/envelope';
import { defaultTestBackend, testRateLimitStores, TestRateLimitStores } from '@app/testing';
import express, { type NextFunction, type Request, type Response } from 'express';
import { compactDecrypt, exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import { callPlaintext, sealToService, SealedUnit, startSealedUnit } from '../../test/sealed-unit-fixture';
import { RateLimiters } from '../rate-limits/rate-limiters';
import { sealedCallOf } from './sealed-call.marker';
import { SealedCallMiddleware } from './sealed-call.middleware';

/** What the logical route saw of the request the middleware turned into the call. */
let seen: Record<string, unknown> = {};

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
    app.post('/sealed', (req: Request, res: Response, next: NextFunction) => {
      middleware.use(req, res, next).catch(next);
    });
    app.use((req: Request, res: Response) => {
      seen = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: req.body,
        rawBody: (req as Request & { rawBody?: Buffer }).rawBody?.toString(),
        sealed: sealedCallOf(req) !== undefined,
      };
      res.setHeader('X-Logical', 'yes');
      res.status(201).json({ ok: true });
    });
    app.use((error: ApiError, _req: Request, res: Response, _next: NextFunction) => {
      res.status(error.status ?? 500).set(error.headers ?? {}).json({ code: error.code, message: error.message });
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
    const res = await post('10.0.0.1').set('Content-Type', 'application/jose').send(await sealToService(plaintext));
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/api/v1/open-platform/vouchers/redeem',
      body: { a: 1 },
      rawBody: '{"a":1}',
      sealed: true,
      headers: expect.objectContaining({
        authorization: 'Bearer sop_x',
        'idempotency-key': 'key-1',
        'content-type': 'application/json',
        'content-length': '7',
      }),
    });
    expect((seen.headers as Record<string, string>)['transfer-encoding']).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/jose');
    expect(res.headers['x-logical']).toBeUndefined();
    const opened = JSON.parse(Buffer.from((await compactDecrypt(res.text, answer.privateKey)).plaintext).toString());
    expect(opened).toMatchObject({ status: 201, headers: { 'x-logical': 'yes' }, body: '{"ok":true}' });
  });

  it('refuses a body that is not application/jose', async () => {
    const res = await post('10.0.0.2').set('Content-Type', 'application/json').send('{}');
    expect(res.body).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'A sealed call is sent as application/jose: one compact JWE' });
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
    const key = await post('10.0.0.3').set('Content-Type', 'application/jose').set('Idempotency-Key', 'k').send('a.b.c.d.e');
    expect(key.body.message).toBe('idempotency-key must travel inside the seal, never beside it');
  });

  it('refuses a body above the limit as too large, and trims the seal it reads', async () => {
    const large = await post('10.0.0.4').set('Content-Type', 'application/jose').send('a'.repeat(3000));
    expect([large.status, large.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const plaintext = await callPlaintext();
    const padded = await post('10.0.0.4').set('Content-Type', 'application/jose').send(`\n ${await sealToService(plaintext)} \n`);
    expect(padded.status).toBe(200);
  });

  it('refuses a body it cannot read as malformed', async () => {
    const res = await post('10.0.0.5').set('Content-Type', 'application/jose').set('Content-Encoding', 'bogus').send('x');
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
    expect((await post('10.0.0.7').set('Content-Type', 'text/plain').send('x')).body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});
