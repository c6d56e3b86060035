import { createSealedVoucherApiClient, openAnswer, sealCall } from '@clients/voucher-api';
import { randomUUID } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { CompactEncrypt } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from '@app/testing';
import { AppModule } from '../src/app.module';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError, GENEROUS_RATE_LIMITS, issuedVoucher } from './runtime-fixtures';
import {
  expectSealedError,
  keepLogLines,
  redeemCallOf,
  postSealed,
  sealedCall,
  sendSealed,
  serviceKey,
} from './sealed-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

type Key = Awaited<ReturnType<typeof serviceKey>>;

describe('sealed transport (optional mode): runtime calls as compact JWEs through the plain pipeline', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;
  let newest: Key;
  let older: Key;
  let baseUrl: string;
  const logLines: string[] = [];
  const db = () => ctx.app.get(DataSource);
  const redemptionCount = async (voucherId: string): Promise<number> =>
    (await db().query(`SELECT count(*)::int AS n FROM redemptions WHERE voucher_id = $1`, [voucherId]))[0].n;
  const sealIdCount = async (): Promise<number> =>
    (await db().query(`SELECT count(*)::int AS n FROM sealed_request_ids`))[0].n;
  const redeemCall = (credential: string, order?: string, key?: string) =>
    redeemCallOf(app.token, credential, order, key);

  beforeAll(async () => {
    newest = await serviceKey('k-2026-11');
    older = await serviceKey('k-2026-05');
    ctx = await startVoucherApp({
      ...GENEROUS_RATE_LIMITS,
      LOG_LEVEL: 'info',
      SEALED_TRANSPORT: 'optional',
      SEALED_KEYS: JSON.stringify([newest.entry, older.entry]),
      SEALED_MAX_AGE_SECONDS: '120',
    });
    // The access lines go to the process's pino destination; they are kept here instead of printed.
    await keepLogLines(ctx, logLines);
    await ctx.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(ctx.app.getHttpServer().address() as AddressInfo).port}`;
    app = await seedApplication(ctx);
    templateId = await activeTemplate(ctx, app);
  });
  afterAll(() => ctx?.close());

  it('publishes the public keys as a JWKS, newest first, without private members', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/.well-known/jwks.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    const keys = JSON.parse(res.text).keys;
    expect(keys.map((k: { kid: string }) => k.kid)).toEqual(['k-2026-11', 'k-2026-05']);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES+A256KW' });
      expect(key.d).toBeUndefined();
    }
  });

  it('the typed client over the sealed fetch verifies and redeems with the same calls as the plain client', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const shop = createSealedVoucherApiClient(baseUrl, app.token);
    const verified = await shop.POST(`${API}/vouchers/verify`, {
      body: { credential: { type: 'redeem_code', value: v.code } },
    });
    expect(verified.response.status).toBe(200);
    expect(verified.response.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));
    expect(verified.data?.data?.redeemable).toBe(true);
    const redeemed = await shop.POST(`${API}/vouchers/redeem`, {
      params: { header: { 'Idempotency-Key': `typed-${randomUUID()}` } },
      body: { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'order-typed-1' },
    });
    expect(redeemed.response.status).toBe(201);
    expect(redeemed.data?.data).toMatchObject({ voucher_id: v.id, status: 'succeeded' });
    const again = await shop.POST(`${API}/vouchers/redeem`, {
      params: { header: { 'Idempotency-Key': `typed-${randomUUID()}` } },
      body: { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: 'order-typed-2' },
    });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ error: { code: 'VOUCHER_ALREADY_REDEEMED' } });
  });

  it('the sealed fetch caches the JWKS, and after a seal refused for an unknown kid fetches it again and seals once more', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const retired = await serviceKey('k-retired');
    const jwksFetches: string[] = [];
    const transport: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (!url.endsWith('/.well-known/jwks.json')) return fetch(input, init);
      jwksFetches.push(url);
      if (jwksFetches.length > 1) return fetch(input, init);
      // The first JWKS the client sees still lists a key the service has since removed.
      const { d: _private, ...publicJwk } = retired.entry.jwk;
      const keys = [{ ...publicJwk, kid: retired.kid, use: 'enc', alg: 'ECDH-ES+A256KW' }];
      return new Response(JSON.stringify({ keys }), { headers: { 'content-type': 'application/jwk-set+json' } });
    };
    const shop = createSealedVoucherApiClient(baseUrl, app.token, { fetch: transport });
    const verify = () =>
      shop.POST(`${API}/vouchers/verify`, { body: { credential: { type: 'qr_token', value: v.qrToken } } });
    expect((await verify()).response.status).toBe(200);
    expect(jwksFetches).toHaveLength(2);
    expect((await verify()).response.status).toBe(200);
    expect(jwksFetches).toHaveLength(2);
  });

  it('a seal to the older key still opens (rotation): every configured key opens', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const answer = await sendSealed(ctx, older, redeemCall(v.qrToken));
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
  });

  it('keeps idempotency inside the seal: a new seal with the same key and body replays the first answer, as a plain retry does', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const call = redeemCall(v.qrToken, 'order-idem-1', 'idem-sealed-1');
    const first = await sendSealed(ctx, newest, call);
    expect(first.status).toBe(201);
    const retried = await sendSealed(ctx, newest, call);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body).toBe(first.body);
    const plain = await request(ctx.app.getHttpServer())
      .post(`${API}/vouchers/redeem`)
      .set(bearer(app.token))
      .set('Idempotency-Key', 'idem-sealed-1')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(call.body))
      .expect(201);
    expect(plain.text).toBe(first.body);
    expect(await redemptionCount(v.id)).toBe(1);
  });

  it('parallel sealed redeems of one voucher: exactly one succeeds, the rest get 409 VOUCHER_ALREADY_REDEEMED, one redemption row', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendSealed(ctx, newest, redeemCall(v.qrToken))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(19);
    for (const answer of refused) expectSealedError(answer, 409, 'VOUCHER_ALREADY_REDEEMED');
    expect(await redemptionCount(v.id)).toBe(1);
  });

  it('refuses a replayed seal with 409 SEALED_REQUEST_REPLAYED and redeems nothing twice', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken));
    const jwe = await sealCall(plaintext, newest.publicKey, newest.kid);
    const first = await postSealed(ctx, jwe).expect(200);
    expect((await openAnswer(first.text, answerKey)).status).toBe(201);
    const replay = await postSealed(ctx, jwe).expect(200);
    const opened = await openAnswer(replay.text, answerKey);
    expectSealedError({ status: opened.status, json: JSON.parse(opened.body) }, 409, 'SEALED_REQUEST_REPLAYED');
    expect(await redemptionCount(v.id)).toBe(1);
  });

  it('one seal sent ten times in parallel is admitted once: one redeem, nine 409 SEALED_REQUEST_REPLAYED', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken));
    const jwe = await sealCall(plaintext, newest.publicKey, newest.kid);
    const responses = await Promise.all(Array.from({ length: 10 }, () => postSealed(ctx, jwe).expect(200)));
    const answers = await Promise.all(responses.map((res) => openAnswer(res.text, answerKey)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const replays = answers.filter((a) => a.status !== 201);
    for (const a of replays)
      expectSealedError({ status: a.status, json: JSON.parse(a.body) }, 409, 'SEALED_REQUEST_REPLAYED');
    expect(replays).toHaveLength(9);
    expect(await redemptionCount(v.id)).toBe(1);
  });

  it('a seal replayed to another replica (a second app on the same database) is refused there too', async () => {
    const replica = await createTestApp(AppModule.forRoot(ctx.config));
    try {
      const v = await issuedVoucher(ctx, app, templateId);
      const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken));
      const jwe = await sealCall(plaintext, newest.publicKey, newest.kid);
      const first = await postSealed(ctx, jwe).expect(200);
      expect((await openAnswer(first.text, answerKey)).status).toBe(201);
      const elsewhere = await request(replica.getHttpServer())
        .post('/api/v1/open-platform/sealed')
        .set('Content-Type', 'application/jose')
        .send(jwe)
        .expect(200);
      const opened = await openAnswer(elsewhere.text, answerKey);
      expectSealedError({ status: opened.status, json: JSON.parse(opened.body) }, 409, 'SEALED_REQUEST_REPLAYED');
      expect(await redemptionCount(v.id)).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it('admitting a seal removes seal ids whose window has passed, so the table stays bounded', async () => {
    await db().query(
      `INSERT INTO sealed_request_ids (seal_id, expires_at)
       SELECT 'expired-' || n, now() - interval '1 hour' FROM generate_series(1, 5) n`,
    );
    const v = await issuedVoucher(ctx, app, templateId);
    expect((await sendSealed(ctx, newest, redeemCall(v.qrToken))).status).toBe(201);
    const [{ n }] = await db().query(
      `SELECT count(*)::int AS n FROM sealed_request_ids WHERE seal_id LIKE 'expired-%'`,
    );
    expect(n).toBe(0);
  });

  it("a sealed call is confined to its token's application, as a plain one: another application's voucher is 404", async () => {
    const other = await seedApplication(ctx, { ownerId: 'sealed-other-owner', name: 'Other shop' });
    const v = await issuedVoucher(ctx, app, templateId);
    const answer = await sendSealed(ctx, newest, { ...redeemCall(v.qrToken), token: other.token });
    expectSealedError(answer, 404, 'NOT_FOUND');
    expect(await redemptionCount(v.id)).toBe(0);
  });

  it("checks the application's Origin policy against the outer Origin header", async () => {
    const restricted = await seedApplication(ctx, {
      ownerId: 'sealed-origin-owner',
      allowedOrigins: ['shop.example.com'],
    });
    const call = {
      method: 'POST',
      path: `${API}/vouchers/verify`,
      token: restricted.token,
      body: { credential: { type: 'qr_token', value: 'no-such-token' } },
    };
    expectSealedError(await sendSealed(ctx, newest, call), 403, 'ORIGIN_NOT_ALLOWED');
    const { plaintext, answerKey } = await sealedCall(call);
    const res = await postSealed(ctx, await sealCall(plaintext, newest.publicKey, newest.kid))
      .set('Origin', 'https://shop.example.com')
      .expect(200);
    expect((await openAnswer(res.text, answerKey)).status).toBe(404);
  });

  it('hostile plaintexts and bodies get a 4xx in the envelope, never a 5xx', async () => {
    const hostile: Array<Record<string, unknown>> = [
      { iat: 1e308 },
      { iat: -1 },
      { iat: '1795000000' },
      { path: '/api/v1/open-platform/vouchers/redeem\u0000' },
      { path: `${API}/${'a'.repeat(3000)}` },
      { headers: null },
      { headers: [] },
      { headers: { authorization: 42 } },
      { response_key: { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' } },
      { response_key: { kty: 'oct', k: 'AAAA' } },
      { response_key: 'not a key' },
      { body: '"just a string"' },
      { body: '\ud800' },
      { body: `${'['.repeat(40)}${']'.repeat(40)}` },
      { body: '{"credential":{"type":"qr_token","value":"x\u0000"},"external_order_id":"o"}' },
      { jti: 'x'.repeat(129) },
      { method: 'post' },
    ];
    for (const overrides of hostile) {
      const { plaintext, answerKey } = await sealedCall(
        { ...redeemCall('hostile-token'), idempotencyKey: `hostile-${randomUUID()}` },
        overrides as never,
      );
      const res = await postSealed(ctx, await sealCall(plaintext, newest.publicKey, newest.kid));
      if (res.status === 200) {
        const answer = await openAnswer(res.text, answerKey);
        expect([answer.status >= 400 && answer.status < 500, overrides]).toEqual([true, overrides]);
        expect(JSON.parse(answer.body)).toMatchObject({ success: false });
      } else {
        expect([res.status, overrides]).toEqual([400, overrides]);
        expect(res.body).toMatchObject({ success: false, code: 400 });
      }
    }
    for (const raw of ['', '....', 'a.b.c.d.e', `${'A'.repeat(5000)}.A.A.A.A`, '\u0000.\u0000.\u0000.\u0000.\u0000']) {
      const res = await postSealed(ctx, raw);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false });
    }
  });

  describe('refusals of the seal itself: a 4xx in clear in the envelope, and nothing changes', () => {
    let voucher: { id: string; qrToken: string };
    let sealIdsBefore: number;

    beforeAll(async () => {
      voucher = await issuedVoucher(ctx, app, templateId);
    });
    beforeEach(async () => {
      sealIdsBefore = await sealIdCount();
    });
    afterEach(async () => {
      expect(await redemptionCount(voucher.id)).toBe(0);
      expect(await sealIdCount()).toBe(sealIdsBefore);
    });

    it('tampered ciphertext: 400 SEALED_REQUEST_UNREADABLE', async () => {
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      const parts = (await sealCall(plaintext, newest.publicKey, newest.kid)).split('.');
      const ciphertext = Buffer.from(parts[3], 'base64url');
      ciphertext[0] ^= 0x01;
      parts[3] = ciphertext.toString('base64url');
      expectError(await postSealed(ctx, parts.join('.')), 400, 'SEALED_REQUEST_UNREADABLE');
    });

    it('a tampered protected header (another kid spliced in): 400 SEALED_REQUEST_UNREADABLE', async () => {
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      const jwe = await sealCall(plaintext, newest.publicKey, newest.kid);
      const header = JSON.parse(Buffer.from(jwe.split('.')[0], 'base64url').toString());
      const spliced = Buffer.from(JSON.stringify({ ...header, kid: older.kid })).toString('base64url');
      expectError(
        await postSealed(ctx, [spliced, ...jwe.split('.').slice(1)].join('.')),
        400,
        'SEALED_REQUEST_UNREADABLE',
      );
    });

    it('a wrong kid (a configured key that did not seal it): 400 SEALED_REQUEST_UNREADABLE', async () => {
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      expectError(
        await postSealed(ctx, await sealCall(plaintext, newest.publicKey, older.kid)),
        400,
        'SEALED_REQUEST_UNREADABLE',
      );
    });

    it('an unknown or missing kid: 400 SEALED_KEY_UNKNOWN', async () => {
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      expectError(
        await postSealed(ctx, await sealCall(plaintext, newest.publicKey, 'k-1999')),
        400,
        'SEALED_KEY_UNKNOWN',
      );
      const withoutKid = await new CompactEncrypt(Buffer.from(JSON.stringify(plaintext)))
        .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM' })
        .encrypt(newest.publicKey);
      expectError(await postSealed(ctx, withoutKid), 400, 'SEALED_KEY_UNKNOWN');
    });

    it('an algorithm other than ECDH-ES+A256KW / A256GCM: 400 SEALED_ALGORITHM_NOT_ALLOWED', async () => {
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      const bytes = Buffer.from(JSON.stringify(plaintext));
      for (const [alg, enc] of [
        ['ECDH-ES+A128KW', 'A256GCM'],
        ['ECDH-ES', 'A256GCM'],
        ['ECDH-ES+A256KW', 'A128CBC-HS256'],
      ]) {
        const jwe = await new CompactEncrypt(bytes)
          .setProtectedHeader({ alg, enc, kid: newest.kid })
          .encrypt(newest.publicKey);
        expectError(await postSealed(ctx, jwe), 400, 'SEALED_ALGORITHM_NOT_ALLOWED');
      }
      const none = `${Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: newest.kid })).toString('base64url')}..AAAA.AAAA.AAAA`;
      expectError(await postSealed(ctx, none), 400, 'SEALED_ALGORITHM_NOT_ALLOWED');
    });

    it('an expired or future-dated seal: 400 SEALED_REQUEST_EXPIRED', async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const iat of [now - 121, now + 121]) {
        const { plaintext } = await sealedCall(redeemCall(voucher.qrToken), { iat });
        expectError(
          await postSealed(ctx, await sealCall(plaintext, newest.publicKey, newest.kid)),
          400,
          'SEALED_REQUEST_EXPIRED',
        );
      }
    });

    it('a plaintext that is not a valid call (unknown member, bad path, private answer key, body not JSON): 400 SEALED_REQUEST_MALFORMED naming the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ extra: 1 }, 'extra'],
        [{ path: '/health/live' }, 'path'],
        [{ method: 'TRACE' }, 'method'],
        [{ jti: 'short' }, 'jti'],
        [{ response_key: newest.entry.jwk }, 'response_key'],
        [{ body: '{"credential":' }, 'body'],
        [{ headers: { authorization: `Bearer ${app.token}`, cookie: 'x' } }, 'headers.cookie'],
      ];
      for (const [overrides, field] of cases) {
        const { plaintext } = await sealedCall(redeemCall(voucher.qrToken), overrides as never);
        const res = await postSealed(ctx, await sealCall(plaintext, newest.publicKey, newest.kid));
        expectError(res, 400, 'SEALED_REQUEST_MALFORMED');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });

    it('not a JWE, the wrong media type, or a token beside the seal: a 4xx in the envelope', async () => {
      expectError(await postSealed(ctx, 'not-a-jwe'), 400, 'SEALED_REQUEST_MALFORMED');
      const jsonBody = await request(ctx.app.getHttpServer()).post('/api/v1/open-platform/sealed').send({ jwe: 'x' });
      expectError(jsonBody, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const { plaintext } = await sealedCall(redeemCall(voucher.qrToken));
      const beside = await postSealed(ctx, await sealCall(plaintext, newest.publicKey, newest.kid)).set(
        bearer(app.token),
      );
      expectError(beside, 400, 'SEALED_REQUEST_MALFORMED');
    });

    it('a sealed path to a console route: a sealed 403 SEALED_ROUTE_NOT_ALLOWED, and no application is created', async () => {
      const owner = await ctx.jwt('sealed-console-owner');
      const before = (await db().query(`SELECT count(*)::int AS n FROM applications`))[0].n;
      const answer = await sendSealed(ctx, newest, {
        method: 'POST',
        path: `${API}/applications`,
        token: owner,
        body: { name: 'Sealed console app' },
      });
      expectSealedError(answer, 403, 'SEALED_ROUTE_NOT_ALLOWED');
      expect((await db().query(`SELECT count(*)::int AS n FROM applications`))[0].n).toBe(before);
    });
  });

  it('on the wire a sealed redeem shows neither path, token, idempotency key, credential nor order id; the access line names the logical path only', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const captured: Buffer[] = [];
    const sockets: Socket[] = [];
    const proxy: Server = createServer((client) => {
      sockets.push(client);
      const upstream = connect(Number(new URL(baseUrl).port), '127.0.0.1');
      client.on('data', (chunk: Buffer) => (captured.push(chunk), upstream.write(chunk)));
      upstream.on('data', (chunk: Buffer) => (captured.push(chunk), client.write(chunk)));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const viaProxy = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const shop = createSealedVoucherApiClient(viaProxy, app.token);
      const idempotencyKey = `wire-key-${randomUUID()}`;
      const orderId = `wire-order-${randomUUID()}`;
      logLines.length = 0;
      const redeemed = await shop.POST(`${API}/vouchers/redeem`, {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: { credential: { type: 'qr_token', value: v.qrToken }, external_order_id: orderId },
      });
      expect(redeemed.response.status).toBe(201);
      expect(redeemed.data?.data?.external_order_id).toBe(orderId);

      const wire = Buffer.concat(captured).toString('latin1');
      expect(wire).toContain('POST /api/v1/open-platform/sealed');
      for (const secret of [
        '/vouchers/redeem',
        app.token,
        idempotencyKey,
        v.qrToken,
        orderId,
        redeemed.data!.data!.id,
      ]) {
        expect(wire).not.toContain(secret);
      }

      const accessLines = logLines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request completed');
      const line = accessLines.find((entry) => entry.req.url === `${API}/vouchers/redeem`);
      expect(line).toMatchObject({ req: { method: 'POST', url: `${API}/vouchers/redeem` } });
      expect(accessLines.filter((entry) => entry.req.url === '/api/v1/open-platform/sealed')).toEqual([]);
      const logged = logLines.join('\n');
      for (const secret of [app.token, idempotencyKey, v.qrToken, orderId]) expect(logged).not.toContain(secret);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('plain runtime calls still work in optional mode', async () => {
    const v = await issuedVoucher(ctx, app, templateId);
    const res = await request(ctx.app.getHttpServer())
      .post(`${API}/vouchers/verify`)
      .set(bearer(app.token))
      .send({ credential: { type: 'qr_token', value: v.qrToken } })
      .expect(200);
    expect(res.body.data.redeemable).toBe(true);
  });
});

describe('sealed transport off (the default)', () => {
  let ctx: VoucherTestContext;

  beforeAll(async () => {
    ctx = await startVoucherApp();
  });
  afterAll(() => ctx?.close());

  it('answers 404 SEALED_TRANSPORT_OFF on the sealed route and the JWKS', async () => {
    expectError(await postSealed(ctx, 'a.b.c.d.e'), 404, 'SEALED_TRANSPORT_OFF');
    const jwks = await request(ctx.app.getHttpServer()).get('/.well-known/jwks.json');
    expect(jwks.status).toBe(404);
    expect(jwks.body.error.code).toBe('SEALED_TRANSPORT_OFF');
  });
});
