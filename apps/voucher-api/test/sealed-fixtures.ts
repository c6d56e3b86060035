import { openAnswer, sealCall, type SealedAnswer, type SealedCall } from '@clients/voucher-api';
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { PinoLogger } from 'nestjs-pino';
import pino from 'pino';
import request from 'supertest';
import type { VoucherTestContext } from './app-context';

export const SEALED = '/api/v1/open-platform/sealed';

/** A redeem by QR token as a sealed call carries it, under its own order id and idempotency key unless given. */
export function redeemCallOf(
  token: string,
  credential: string,
  order = `order-${randomUUID()}`,
  key = `key-${randomUUID()}`,
): Parameters<typeof sealedCall>[0] {
  return {
    method: 'POST',
    path: '/api/v1/open-platform/vouchers/redeem',
    token,
    idempotencyKey: key,
    body: { credential: { type: 'qr_token', value: credential }, external_order_id: order },
  };
}

/** A service key pair for SEALED_KEYS, and its entry there. */
export async function serviceKey(
  kid: string,
): Promise<{ kid: string; publicKey: KeyLike; entry: { kid: string; jwk: JWK } }> {
  const pair = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
  return { kid, publicKey: pair.publicKey, entry: { kid, jwk: await exportJWK(pair.privateKey) } };
}

/** A call as a client seals it, with a fresh answer key pair; `overrides` replace members of the plaintext. */
export async function sealedCall(
  call: { method: string; path: string; token?: string; idempotencyKey?: string; body?: unknown },
  overrides: Partial<SealedCall> = {},
): Promise<{ plaintext: SealedCall; answerKey: KeyLike }> {
  const answer = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
  const headers: SealedCall['headers'] = {};
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  const plaintext: SealedCall = {
    method: call.method,
    path: call.path,
    headers,
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    iat: Math.floor(Date.now() / 1000),
    jti: randomBytes(18).toString('base64url'),
    response_key: await exportJWK(answer.publicKey),
    ...overrides,
  };
  return { plaintext, answerKey: answer.privateKey };
}

/** POSTs a compact JWE to the sealed route. */
export function postSealed(ctx: VoucherTestContext, jwe: string) {
  return request(ctx.app.getHttpServer()).post(SEALED).set('Content-Type', 'application/jose').send(jwe);
}

/** Seals `call` to `key`, sends it and opens the answer (which must be sealed). */
export async function sendSealed(
  ctx: VoucherTestContext,
  key: { kid: string; publicKey: KeyLike },
  call: Parameters<typeof sealedCall>[0],
  overrides: Partial<SealedCall> = {},
): Promise<SealedAnswer & { json: any }> {
  const { plaintext, answerKey } = await sealedCall(call, overrides);
  const res = await postSealed(ctx, await sealCall(plaintext, key.publicKey, key.kid));
  if (res.status !== 200) throw new Error(`sealed route answered ${res.status}: ${res.text}`);
  expect(res.headers['content-type']).toMatch(/^application\/jose/);
  const answer = await openAnswer(res.text, answerKey);
  return { ...answer, json: answer.body ? JSON.parse(answer.body) : undefined };
}

/** An opened answer's envelope refusal, as `expectError` checks a plain one. */
export function expectSealedError(answer: { status: number; json: any }, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({ success: false, code: status, error: { code } });
}

/** Keeps every line the app logs in `lines` instead of printing it, for tests that read the logs. */
export async function keepLogLines(ctx: VoucherTestContext, lines: string[]): Promise<void> {
  const stream = (
    (await ctx.app.resolve(PinoLogger)).logger as unknown as Record<symbol, { write(line: string): boolean }>
  )[pino.symbols.streamSym];
  stream.write = (line: string) => (lines.push(line), true);
}
