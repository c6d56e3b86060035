import { openAnswer, sealCall, type SealedCall } from '@clients/voucher-api';
import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { waitUntil } from '@app/testing';
import { SealCipher } from '../src/sealed-transport/seal-cipher';
import { PURGE_BATCH } from '../src/sealed-transport/sealed-request-ids.store';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, expectError, GENEROUS_RATE_LIMITS, issuedVoucher } from './runtime-fixtures';
import { expectSealedError, keepLogLines, redeemCallOf, SEALED, sealedCall, serviceKey } from './sealed-fixtures';

// Real HTTP against real PostgreSQL on a shared machine: parallel bursts need more than the 5 s default.
jest.setTimeout(60_000);

const MAX_AGE_SECONDS = 120;
/** Sealed calls one client address may send per minute in this file; each test sends from addresses of its own. */
const SEALED_PER_ADDRESS = 60;

/** 32 bytes, little-endian: how RFC 7748 encodes an X25519 u-coordinate. */
function littleEndian(value: bigint): string {
  const bytes = Buffer.alloc(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return bytes.toString('base64url');
}

const P = (1n << 255n) - 19n;
/**
 * The X25519 public keys of small order, with which every key agreement gives zero (the list libsodium
 * refuses): 0 and 1, the two points of order 8, p − 1, and p and p + 1, the non-canonical encodings of
 * 0 and 1; each also with the top bit set, which X25519 ignores (RFC 7748, section 5).
 */
const SMALL_ORDER_U = [
  0n,
  1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
  P - 1n,
  P,
  P + 1n,
];
const LOW_ORDER_X25519 = SMALL_ORDER_U.flatMap((u) => [littleEndian(u), littleEndian(u | (1n << 255n))]);

/** A public JWK of `crv` whose `y` is changed so that the point lies off the curve. */
async function offCurve(crv: 'P-256' | 'P-384' | 'P-521'): Promise<JWK> {
  const { publicKey } = await generateKeyPair('ECDH-ES+A256KW', { crv, extractable: true });
  const jwk = await exportJWK(publicKey);
  const y = Buffer.from(jwk.y!, 'base64url');
  y[y.length - 1] ^= 0x01;
  return { ...jwk, y: y.toString('base64url') };
}

describe('sealed transport against hostile callers', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let templateId: string;
  let service: Awaited<ReturnType<typeof serviceKey>>;
  let port: number;
  let lastAddress = 0;
  const logLines: string[] = [];
  const db = () => ctx.app.get(DataSource);
  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    (await db().query(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n;
  const redemptionCount = (voucherId: string) => count(`redemptions WHERE voucher_id = $1`, [voucherId]);
  const sealIdCount = () => count(`sealed_request_ids`);
  const idempotencyKeyCount = (keys: string[]) => count(`idempotency_keys WHERE key = ANY($1)`, [keys]);
  /** A client address of its own (the app trusts one proxy hop), so no test uses up another's per-address limit. */
  const newAddress = () => `198.51.100.${++lastAddress}`;
  const redeemCall = (credential: string, order?: string, key?: string) =>
    redeemCallOf(app.token, credential, order, key);
  const verifyCall = (token = app.token) => ({
    method: 'POST',
    path: `${API}/vouchers/verify`,
    token,
    body: { credential: { type: 'qr_token', value: `no-such-${randomUUID()}` } },
  });
  const post = (jwe: string, from: string) =>
    request(ctx.app.getHttpServer())
      .post(SEALED)
      .set('Content-Type', 'application/jose')
      .set('X-Forwarded-For', from)
      .send(jwe);
  const seal = (plaintext: SealedCall) => sealCall(plaintext, service.publicKey, service.kid);
  /** Sends a sealed call and opens its answer, which must come back sealed. */
  const sendSealed = async (
    from: string,
    call: Parameters<typeof sealedCall>[0],
    overrides: Partial<SealedCall> = {},
  ): Promise<{ status: number; headers: Record<string, string>; json: any }> => {
    const { plaintext, answerKey } = await sealedCall(call, overrides);
    return openSealed(await post(await seal(plaintext), from), answerKey);
  };
  const openSealed = async (res: request.Response, answerKey: KeyLike) => {
    expect([res.status, res.headers['content-type']]).toEqual([200, expect.stringMatching(/^application\/jose/)]);
    const answer = await openAnswer(res.text, answerKey);
    return { ...answer, json: answer.body ? JSON.parse(answer.body) : undefined };
  };

  beforeAll(async () => {
    service = await serviceKey('k-hostile');
    ctx = await startVoucherApp({
      RATE_LIMITS: `${GENEROUS_RATE_LIMITS.RATE_LIMITS},sealed=${SEALED_PER_ADDRESS}`,
      TRUST_PROXY_HOPS: '1',
      LOG_LEVEL: 'info',
      SEALED_TRANSPORT: 'optional',
      SEALED_KEYS: JSON.stringify([service.entry]),
      SEALED_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS),
    });
    // Every line the process logs is kept here instead of printed, for the tests that read them.
    await keepLogLines(ctx, logLines);
    await ctx.app.listen(0, '127.0.0.1');
    port = (ctx.app.getHttpServer().address() as AddressInfo).port;
    app = await seedApplication(ctx);
    templateId = await activeTemplate(ctx, app);
  });
  afterAll(() => ctx?.close());

  describe('defect 6: an unusable answer key is refused before the call runs', () => {
    it('defect 6: every low-order X25519 response_key gets 400 SEALED_ANSWER_KEY_UNUSABLE in clear, and nothing is written', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const sealIdsBefore = await sealIdCount();
      const keys: string[] = [];
      for (const x of LOW_ORDER_X25519) {
        const key = `low-order-${randomUUID()}`;
        keys.push(key);
        const { plaintext } = await sealedCall(redeemCall(v.qrToken, undefined, key), {
          response_key: { kty: 'OKP', crv: 'X25519', x },
        });
        const res = await post(await seal(plaintext), from);
        expect([res.status, x]).toEqual([400, x]);
        expectError(res, 400, 'SEALED_ANSWER_KEY_UNUSABLE');
        expect(res.body.error.details).toEqual([{ field: 'response_key', problem: expect.any(String) }]);
      }
      expect(await redemptionCount(v.id)).toBe(0);
      expect(await idempotencyKeyCount(keys)).toBe(0);
      expect(await sealIdCount()).toBe(sealIdsBefore);
      // The voucher was left as it was: with a usable key it redeems.
      expect((await sendSealed(from, redeemCall(v.qrToken))).status).toBe(201);
    });

    it('defect 6: answer keys off their curve, on another curve or of a wrong shape get a 400 in clear, and nothing is written', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const sealIdsBefore = await sealIdCount();
      const x25519 = await exportJWK((await generateKeyPair('ECDH-ES+A256KW', { crv: 'X25519' })).publicKey);
      const p256 = await exportJWK((await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256' })).publicKey);
      const ed25519 = await exportJWK((await generateKeyPair('EdDSA', { crv: 'Ed25519' })).publicKey);
      const cases: Array<[string, object, string]> = [
        ['P-256 point off the curve', await offCurve('P-256'), 'SEALED_ANSWER_KEY_UNUSABLE'],
        ['P-384 point off the curve', await offCurve('P-384'), 'SEALED_ANSWER_KEY_UNUSABLE'],
        ['P-521 point off the curve', await offCurve('P-521'), 'SEALED_ANSWER_KEY_UNUSABLE'],
        ['secp256k1', { ...p256, crv: 'secp256k1' }, 'SEALED_REQUEST_MALFORMED'],
        ['an Ed25519 signing key', ed25519, 'SEALED_REQUEST_MALFORMED'],
        ['X448', { kty: 'OKP', crv: 'X448', x: Buffer.alloc(56, 9).toString('base64url') }, 'SEALED_REQUEST_MALFORMED'],
        ['X25519 with a y', { ...x25519, y: p256.y }, 'SEALED_REQUEST_MALFORMED'],
        ['X25519 of 31 bytes', { ...x25519, x: Buffer.alloc(31, 9).toString('base64url') }, 'SEALED_REQUEST_MALFORMED'],
        ['X25519 not base64url', { ...x25519, x: `${x25519.x!.slice(1)}+` }, 'SEALED_REQUEST_MALFORMED'],
        ['P-256 without y', { kty: 'EC', crv: 'P-256', x: p256.x }, 'SEALED_REQUEST_MALFORMED'],
        [
          'P-256 with a 33-byte x',
          { ...p256, x: Buffer.alloc(33, 1).toString('base64url') },
          'SEALED_REQUEST_MALFORMED',
        ],
        ['P-256 with a number for x', { ...p256, x: 42 }, 'SEALED_REQUEST_MALFORMED'],
        ['a symmetric key', { kty: 'oct', k: 'AAAA' }, 'SEALED_REQUEST_MALFORMED'],
      ];
      const keys: string[] = [];
      for (const [name, responseKey, code] of cases) {
        const key = `bad-key-${randomUUID()}`;
        keys.push(key);
        const { plaintext } = await sealedCall(redeemCall(v.qrToken, undefined, key), {
          response_key: responseKey as JWK,
        });
        const res = await post(await seal(plaintext), from);
        expect([name, res.status, res.body.error?.code]).toEqual([name, 400, code]);
        expect(res.body.error.details).toEqual([{ field: 'response_key', problem: expect.any(String) }]);
      }
      expect(await redemptionCount(v.id)).toBe(0);
      expect(await idempotencyKeyCount(keys)).toBe(0);
      expect(await sealIdCount()).toBe(sealIdsBefore);
    });

    it('answer keys on each accepted curve (P-256, P-384, P-521, X25519) get their answer sealed to them, as does a P-256 key whose x lost its leading zero octet', async () => {
      const from = newAddress();
      const sendTo = async (publicJwk: JWK, privateKey: KeyLike) => {
        const { plaintext } = await sealedCall(verifyCall(), { response_key: publicJwk });
        return openSealed(await post(await seal(plaintext), from), privateKey);
      };
      for (const crv of ['P-256', 'P-384', 'P-521', 'X25519']) {
        const pair = await generateKeyPair('ECDH-ES+A256KW', { crv, extractable: true });
        const answer = await sendTo(await exportJWK(pair.publicKey), pair.privateKey);
        expect([crv, answer.status, answer.json.error.code]).toEqual([crv, 404, 'NOT_FOUND']);
      }
      // Some libraries write a coordinate without its leading zero octet (one key in 256).
      for (;;) {
        const pair = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
        const jwk = await exportJWK(pair.publicKey);
        const x = Buffer.from(jwk.x!, 'base64url');
        if (x[0] !== 0) continue;
        const answer = await sendTo({ ...jwk, x: x.subarray(1).toString('base64url') }, pair.privateKey);
        expect(answer.status).toBe(404);
        break;
      }
    });

    it('defect 6: an answer that cannot be sealed after all is a 500 in the envelope, in clear and without the answer; a new seal with the same idempotency key reads the stored answer', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const order = `order-unsealable-${randomUUID()}`;
      const key = `key-unsealable-${randomUUID()}`;
      const cipher = ctx.app.get(SealCipher);
      const realSeal = cipher.seal.bind(cipher);
      const lowOrder = (await importJWK(
        { kty: 'OKP', crv: 'X25519', x: LOW_ORDER_X25519[0] },
        'ECDH-ES+A256KW',
      )) as KeyLike;
      // The real sealing, to a key no agreement works with: OpenSSL's own failure, as if a key had
      // slipped through the proof.
      const failing = jest
        .spyOn(cipher, 'seal')
        .mockImplementationOnce((plaintext: Uint8Array) => realSeal(plaintext, lowOrder as never));
      logLines.length = 0;
      const { plaintext } = await sealedCall(redeemCall(v.qrToken, order, key));
      const res = await post(await seal(plaintext), from);
      failing.mockRestore();
      expectError(res, 500, 'SEALED_ANSWER_FAILED');
      expect(res.headers['cache-control']).toBe('no-store');
      // Nothing of the logical answer leaves in clear: neither its body nor its headers.
      expect(res.text).not.toContain(order);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      await waitUntil(
        () => logLines.some((line) => JSON.parse(line).msg === 'request errored'),
        'the access line of the 500',
      );
      const logged = logLines.join('\n');
      for (const secret of [app.token, key, v.qrToken, order]) expect(logged).not.toContain(secret);
      // The redeem ran: a new seal under the same key reads its stored answer and redeems nothing twice.
      const retried = await sendSealed(from, redeemCall(v.qrToken, order, key));
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBe('true');
      expect(retried.json.data.external_order_id).toBe(order);
      expect(await redemptionCount(v.id)).toBe(1);
    });

    it('defect 6: no log line holds a sealed header, even when the client goes away while its call runs', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const order = `order-aborted-${randomUUID()}`;
      const key = `key-aborted-${randomUUID()}`;
      const { plaintext } = await sealedCall(redeemCall(v.qrToken, order, key));
      const jwe = await seal(plaintext);
      // The voucher's row stays locked, so the redeem waits inside the call until the client has gone.
      const locker = db().createQueryRunner();
      await locker.connect();
      await locker.startTransaction();
      try {
        await locker.query(`SELECT 1 FROM vouchers WHERE id = $1 FOR UPDATE`, [v.id]);
        logLines.length = 0;
        const client = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: SEALED,
          headers: { 'content-type': 'application/jose', 'x-forwarded-for': from },
        });
        client.on('error', () => undefined);
        client.end(jwe);
        await waitUntil(
          async () => (await count(`sealed_request_ids WHERE seal_id = $1`, [plaintext.jti])) === 1,
          'the sealed call admitted',
        );
        client.destroy();
        await waitUntil(
          () => logLines.some((line) => JSON.parse(line).msg === 'request aborted'),
          'the access line of the aborted call',
        );
      } finally {
        await locker.rollbackTransaction();
        await locker.release();
      }
      const logged = logLines.join('\n');
      for (const secret of [app.token, key, v.qrToken, order]) expect(logged).not.toContain(secret);
      await waitUntil(async () => (await redemptionCount(v.id)) === 1, 'the redeem finished after the lock');
    });
  });

  describe('defect 9: nothing is written before the call is authenticated', () => {
    it('defect 9: 50 sealed calls without a valid token record no seal id; each gets its 401 sealed', async () => {
      const from = newAddress();
      const sealIdsBefore = await sealIdCount();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          sendSealed(from, verifyCall(i % 2 === 0 ? '' : `sop_${randomBytes(32).toString('base64url')}`)),
        ),
      );
      for (const answer of answers) expectSealedError(answer, 401, 'UNAUTHORIZED');
      expect(await sealIdCount()).toBe(sealIdsBefore);
    });

    it('defect 9: a seal refused for its token never ran: sealed again with the right token under the same jti it runs once, and its replay is refused', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const jti = randomBytes(18).toString('base64url');
      const call = redeemCall(v.qrToken);
      const wrongToken = `sop_${randomBytes(32).toString('base64url')}`;
      expectSealedError(await sendSealed(from, { ...call, token: wrongToken }, { jti }), 401, 'UNAUTHORIZED');
      const { plaintext, answerKey } = await sealedCall(call, { jti });
      const jwe = await seal(plaintext);
      expect((await openSealed(await post(jwe, from), answerKey)).status).toBe(201);
      const replay = await openSealed(await post(jwe, from), answerKey);
      expectSealedError(replay, 409, 'SEALED_REQUEST_REPLAYED');
      expect(await redemptionCount(v.id)).toBe(1);
    });

    it('defect 9: a seal refused after authentication (its Origin) may be sent again unchanged, and then runs once', async () => {
      const restricted = await seedApplication(ctx, {
        ownerId: 'hostile-origin-owner',
        allowedOrigins: ['shop.example.com'],
      });
      const from = newAddress();
      const { plaintext, answerKey } = await sealedCall(verifyCall(restricted.token));
      const jwe = await seal(plaintext);
      const sealIdsBefore = await sealIdCount();
      expectSealedError(await openSealed(await post(jwe, from), answerKey), 403, 'ORIGIN_NOT_ALLOWED');
      expect(await sealIdCount()).toBe(sealIdsBefore);
      const withOrigin = () => post(jwe, from).set('Origin', 'https://shop.example.com');
      expectSealedError(await openSealed(await withOrigin(), answerKey), 404, 'NOT_FOUND');
      expectSealedError(await openSealed(await withOrigin(), answerKey), 409, 'SEALED_REQUEST_REPLAYED');
      expect(await sealIdCount()).toBe(sealIdsBefore + 1);
    });

    it('defect 9: sealed calls are limited per client address before they are opened: past the limit 429 in clear, and other addresses go on', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const junk = await Promise.all(Array.from({ length: SEALED_PER_ADDRESS }, () => post('a.b.c.d.e', from)));
      for (const res of junk) expect(res.status).toBe(400);
      const sealIdsBefore = await sealIdCount();
      const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken));
      const jwe = await seal(plaintext);
      const limited = await post(jwe, from);
      expectError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers['x-ratelimit-limit']).toBe(String(SEALED_PER_ADDRESS));
      expect(await sealIdCount()).toBe(sealIdsBefore);
      expect(await redemptionCount(v.id)).toBe(0);
      expect((await openSealed(await post(jwe, newAddress()), answerKey)).status).toBe(201);
    });
  });

  describe("defect 9: freshness and the purge of seal ids follow the database's clock, not a replica's", () => {
    /** Only the process's Date moves; timers, sockets, Redis and PostgreSQL keep real time. */
    const runProcessClockAt = (ms: number) =>
      jest.useFakeTimers({
        now: ms,
        advanceTimers: true,
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'requestIdleCallback',
          'cancelIdleCallback',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
      });
    afterEach(() => jest.useRealTimers());

    it('defect 9: a replica whose clock runs fast purges no seal id that is still in its window, so the replay stays refused', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken));
      const jwe = await seal(plaintext);
      expect((await openSealed(await post(jwe, from), answerKey)).status).toBe(201);
      const stale = `stale-${randomUUID()}`;
      await db().query(
        `INSERT INTO sealed_request_ids (seal_id, expires_at) VALUES ($1, now() - interval '10 minutes')`,
        [stale],
      );
      // Calls this replica takes for fresh, each purging a batch: as many as it takes to go through the table.
      const calls = Math.ceil((await sealIdCount()) / PURGE_BATCH) + 1;
      runProcessClockAt(Date.now() + 10 * 60_000);
      const fastCalls = [];
      for (let i = 0; i < calls; i++) fastCalls.push(await sendSealed(from, verifyCall()));
      jest.useRealTimers();
      const replay = await openSealed(await post(jwe, from), answerKey);
      expectSealedError(replay, 409, 'SEALED_REQUEST_REPLAYED');
      expect(await redemptionCount(v.id)).toBe(1);
      // The database's clock judged them too far ahead, and their admissions purged what had expired on it.
      for (const fastCall of fastCalls) expectSealedError(fastCall, 400, 'SEALED_REQUEST_EXPIRED');
      expect(await count(`sealed_request_ids WHERE seal_id = $1`, [stale])).toBe(0);
    });

    it('defect 9: a replica whose clock runs slow refuses a seal too old on the database clock, whose id may be purged already', async () => {
      const v = await issuedVoucher(ctx, app, templateId);
      const from = newAddress();
      const now = Date.now();
      const iat = Math.floor(now / 1000) - (MAX_AGE_SECONDS + 30);
      const { plaintext, answerKey } = await sealedCall(redeemCall(v.qrToken), { iat });
      const jwe = await seal(plaintext);
      const sealIdsBefore = await sealIdCount();
      runProcessClockAt(now - 60_000);
      const answer = await openSealed(await post(jwe, from), answerKey);
      jest.useRealTimers();
      expectSealedError(answer, 400, 'SEALED_REQUEST_EXPIRED');
      expect(await redemptionCount(v.id)).toBe(0);
      expect(await sealIdCount()).toBe(sealIdsBefore);
    });
  });
});
