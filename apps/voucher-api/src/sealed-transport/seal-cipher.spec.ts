import { ApiError } from '@app/envelope';
import { loadConfig } from '@app/platform';
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { DEV_SEALING_KEY } from '../config/sealing-keys';
import { VoucherConfig } from '../config/voucher.config';
import { SealCipher } from './seal-cipher';

const cipher = new SealCipher(loadConfig(VoucherConfig, { NODE_ENV: 'test', SEALED_TRANSPORT: 'optional' }));
const b64 = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function sealTo(header: Record<string, unknown>, plaintext = '{"a":1}'): Promise<string> {
  const { d: _private, ...publicJwk } = DEV_SEALING_KEY.jwk;
  const key = await importJWK(publicJwk, 'ECDH-ES+A256KW');
  return new CompactEncrypt(Buffer.from(plaintext))
    .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: DEV_SEALING_KEY.kid, ...header } as never)
    .encrypt(key);
}

async function refusal(run: () => unknown): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('SealCipher.open', () => {
  it('opens a call sealed to a key of the service', async () => {
    expect(Buffer.from(await cipher.open(await sealTo({}))).toString()).toBe('{"a":1}');
  });

  it('publishes the public half of its keys only', () => {
    expect(cipher.jwks.keys).toHaveLength(1);
    expect(cipher.jwks.keys[0]).toMatchObject({ kid: DEV_SEALING_KEY.kid, x: DEV_SEALING_KEY.jwk.x });
    expect(cipher.jwks.keys[0]).not.toHaveProperty('d');
  });

  it.each([
    ['four parts', 'a.b.c.d'],
    ['six parts', 'a.b.c.d.e.f'],
  ])('refuses a body of %s as not one compact JWE', async (_what, body) => {
    const error = await refusal(() => cipher.open(body));
    expect([error.code, error.message]).toEqual([
      'SEALED_REQUEST_MALFORMED',
      'The body must be one compact JWE (five base64url parts)',
    ]);
  });

  it('refuses a protected header that is not base64url JSON', async () => {
    const error = await refusal(() => cipher.open(`${b64('not json')}.b.c.d.e`));
    expect([error.code, error.message]).toEqual([
      'SEALED_REQUEST_MALFORMED',
      'The protected header is not base64url JSON',
    ]);
  });

  it.each([
    ['another key algorithm', { alg: 'RSA-OAEP', enc: 'A256GCM' }],
    ['another content algorithm', { alg: 'ECDH-ES+A256KW', enc: 'A128GCM' }],
    ['no algorithm at all', { enc: 'A256GCM' }],
  ])('refuses %s', async (_what, header) => {
    const error = await refusal(() => cipher.open(`${b64({ kid: DEV_SEALING_KEY.kid, ...header })}.b.c.d.e`));
    expect(error.code).toBe('SEALED_ALGORITHM_NOT_ALLOWED');
    expect(error.message).toBe(
      `alg ${String((header as { alg?: string }).alg)} / enc ${header.enc}: only ECDH-ES+A256KW / A256GCM are accepted`,
    );
  });

  it.each([
    ['an unknown kid', { kid: 'other' }],
    ['a kid that is not a string', { kid: 7 }],
    ['no kid', { kid: undefined }],
  ])('refuses %s, naming the keys it has', async (_what, header) => {
    const error = await refusal(() =>
      cipher.open(`${b64({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', ...header })}.b.c.d.e`),
    );
    expect([error.code, error.message]).toEqual([
      'SEALED_KEY_UNKNOWN',
      `kid must name a key of ${DEV_SEALING_KEY.kid}`,
    ]);
  });

  it.each([
    ['zip', { zip: 'DEF' }],
    ['crit', { crit: ['exp'], exp: 1 }],
  ])('refuses a header with %s', async (_what, header) => {
    const error = await refusal(() =>
      cipher.open(`${b64({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: DEV_SEALING_KEY.kid, ...header })}.b.c.d.e`),
    );
    expect([error.code, error.message]).toEqual([
      'SEALED_REQUEST_MALFORMED',
      'zip and crit are not accepted in a sealed call',
    ]);
  });

  it('answers one unreadable refusal for a tampered ciphertext', async () => {
    const parts = (await sealTo({})).split('.');
    parts[3] = b64('tampered ciphertext');
    expect((await refusal(() => cipher.open(parts.join('.')))).code).toBe('SEALED_REQUEST_UNREADABLE');
  });
});

describe('SealCipher.answerKey', () => {
  const ecKey = async (crv: string) =>
    exportJWK((await generateKeyPair('ECDH-ES', { crv, extractable: true })).publicKey);
  const x25519 = () => generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }) as JWK;

  it.each(['P-256', 'P-384', 'P-521'])('takes a public %s key and seals an answer the caller opens', async (crv) => {
    const pair = await generateKeyPair('ECDH-ES+A256KW', { crv, extractable: true });
    const key = cipher.answerKey((await exportJWK(pair.publicKey)) as unknown as Record<string, unknown>);
    const sealed = await cipher.seal(Buffer.from('{"ok":true}'), key);
    const { plaintext, protectedHeader } = await compactDecrypt(sealed, pair.privateKey);
    expect(Buffer.from(plaintext).toString()).toBe('{"ok":true}');
    expect(protectedHeader).toMatchObject({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', cty: 'json' });
  });

  it('takes an X25519 key and the public members a JWK may carry', async () => {
    expect(() =>
      cipher.answerKey({ ...x25519(), kid: 'k', use: 'enc', alg: 'ECDH-ES+A256KW', key_ops: [], ext: true }),
    ).not.toThrow();
  });

  it('takes an EC coordinate one leading zero octet short', async () => {
    // Such keys exist: pick one whose x starts with a zero octet and drop it.
    for (;;) {
      const jwk = await ecKey('P-256');
      const x = Buffer.from(jwk.x!, 'base64url');
      if (x[0] !== 0) continue;
      expect(() => cipher.answerKey({ ...jwk, x: x.subarray(1).toString('base64url') })).not.toThrow();
      return;
    }
  });

  const malformed = 'response_key must be a public EC P-256/P-384/P-521 or OKP X25519 JWK without private members';
  it.each([
    ['an unknown curve', async () => ({ ...(await ecKey('P-256')), crv: 'P-192' })],
    ['no curve', async () => ({ ...(await ecKey('P-256')), crv: undefined })],
    ['a curve given as a number', async () => ({ ...(await ecKey('P-256')), crv: 256 })],
    ['the wrong key type for its curve', async () => ({ ...x25519(), kty: 'EC' })],
    ['a private member', async () => ({ ...(await ecKey('P-256')), d: 'AAAA' })],
    ['an unknown member', async () => ({ ...(await ecKey('P-256')), n: 'AAAA' })],
  ])('refuses %s', async (_what, make) => {
    const error = await refusal(async () => cipher.answerKey((await make()) as Record<string, unknown>));
    expect([error.code, error.message]).toEqual(['SEALED_REQUEST_MALFORMED', malformed]);
    expect(error.details).toEqual([{ field: 'response_key', problem: malformed.replace('response_key ', '') }]);
  });

  it('refuses an X25519 key with a y', async () => {
    const error = await refusal(() => cipher.answerKey({ ...x25519(), y: 'AAAA' }));
    expect(error.message).toBe('response_key must have no y: an X25519 key is its x alone');
  });

  it.each([
    ['a coordinate too long', 'x', 'A'.repeat(44)],
    ['an empty coordinate', 'y', ''],
    ['a coordinate with padding', 'x', 'AAAA='],
    ['a coordinate of an impossible length', 'y', 'A'.repeat(41)],
    ['a coordinate that is not a string', 'x', 7],
  ])('refuses %s', async (_what, member, value) => {
    const error = await refusal(async () => cipher.answerKey({ ...(await ecKey('P-256')), [member]: value }));
    expect([error.code, error.message]).toEqual([
      'SEALED_REQUEST_MALFORMED',
      `response_key ${member} must be the 32 octets of a P-256 coordinate, base64url without padding`,
    ]);
  });

  it.each([
    ['starts', `=${'A'.repeat(42)}`],
    ['ends', `${'A'.repeat(42)}=`],
  ])('refuses a coordinate of the right length that %s with a character outside base64url', async (_where, x) => {
    const error = await refusal(async () => cipher.answerKey({ ...(await ecKey('P-256')), x }));
    expect(error.message).toBe('response_key x must be the 32 octets of a P-256 coordinate, base64url without padding');
  });

  it('takes a coordinate of a single octet as well formed, and refuses it as no point of its curve', async () => {
    const error = await refusal(async () => cipher.answerKey({ ...(await ecKey('P-256')), x: 'AQ' }));
    expect(error.code).toBe('SEALED_ANSWER_KEY_UNUSABLE');
  });

  it('refuses an X25519 key shorter than 32 octets', async () => {
    const error = await refusal(() => cipher.answerKey({ ...x25519(), x: 'A'.repeat(42) }));
    expect(error.message).toBe(
      'response_key x must be the 32 octets of a X25519 coordinate, base64url without padding',
    );
  });

  it('refuses a point that is not on its curve', async () => {
    const jwk = await ecKey('P-256');
    const error = await refusal(() => cipher.answerKey({ ...jwk, y: jwk.x }));
    expect([error.code, error.message]).toEqual(['SEALED_ANSWER_KEY_UNUSABLE', 'response_key is not a point of P-256']);
  });

  it('refuses an X25519 point of small order: no shared secret', async () => {
    const error = await refusal(() =>
      cipher.answerKey({ kty: 'OKP', crv: 'X25519', x: Buffer.alloc(32).toString('base64url') }),
    );
    expect([error.code, error.message]).toEqual([
      'SEALED_ANSWER_KEY_UNUSABLE',
      'response_key gives no shared secret in a key agreement (a point of small order)',
    ]);
  });
});
