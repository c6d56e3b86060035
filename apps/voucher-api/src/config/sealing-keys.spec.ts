import { generateKeyPairSync } from 'node:crypto';
import { DEV_SEALING_KEY, parseSealingKeys, sealingKeyProblems } from './sealing-keys';

const ecJwk = (curve = 'P-256') =>
  generateKeyPairSync('ec', { namedCurve: curve }).privateKey.export({ format: 'jwk' });

describe('sealing keys from SEALED_KEYS', () => {
  it('reads JWK and PEM keys with their kid, newest first, and publishes only their public part', () => {
    const pem = generateKeyPairSync('x25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const keys = parseSealingKeys(
      JSON.stringify([
        { kid: 'new', jwk: ecJwk('P-384') },
        { kid: 'old', pem },
      ]),
    );
    expect(keys.map((key) => key.kid)).toEqual(['new', 'old']);
    expect(keys[0].publicJwk).toMatchObject({ kty: 'EC', crv: 'P-384', kid: 'new', use: 'enc', alg: 'ECDH-ES+A256KW' });
    expect(keys[1].publicJwk).toMatchObject({ kty: 'OKP', crv: 'X25519', kid: 'old' });
    for (const key of keys) expect(key.publicJwk).not.toHaveProperty('d');
  });

  it('stands in the development key when empty', () => {
    const [key] = parseSealingKeys('');
    expect(key.kid).toBe(DEV_SEALING_KEY.kid);
    expect(key.publicJwk.x).toBe(DEV_SEALING_KEY.jwk.x);
  });

  it.each([
    ['not JSON', 'SEALED_KEYS: must be a JSON array'],
    ['[]', 'SEALED_KEYS: must be a JSON array of 1 to 8 keys'],
    [
      JSON.stringify([
        { kid: 'a', jwk: ecJwk() },
        { kid: 'a', jwk: ecJwk() },
      ]),
      'two keys share one kid',
    ],
    [JSON.stringify([{ kid: 'bad kid!', jwk: ecJwk() }]), 'kid must be'],
    [JSON.stringify([{ kid: 'a' }]), 'give exactly one of jwk and pem'],
    [JSON.stringify([{ kid: 'a', jwk: ecJwk(), use: 'enc' }]), 'unknown fields: use'],
    [JSON.stringify([{ kid: 'a', pem: 'garbage' }]), 'not a readable private key'],
    [
      JSON.stringify([
        { kid: 'rsa', jwk: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) },
      ]),
      'must be EC P-256, P-384, P-521 or X25519',
    ],
    [
      JSON.stringify([{ kid: 'ed', jwk: generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) }]),
      'must be EC P-256, P-384, P-521 or X25519',
    ],
  ])('refuses %s at boot with a message naming the variable', (value, message) => {
    const problems = sealingKeyProblems(value, 'optional', 'development');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });

  it('in production with sealed transport on, refuses a missing key and the development key; off, it does not care', () => {
    expect(sealingKeyProblems('', 'required', 'production')).toEqual([
      'SEALED_KEYS: required when NODE_ENV=production and SEALED_TRANSPORT is on',
    ]);
    const dev = JSON.stringify([{ kid: 'renamed', jwk: DEV_SEALING_KEY.jwk }]);
    expect(sealingKeyProblems(dev, 'optional', 'production')).toEqual([
      'SEALED_KEYS: the development key is refused when NODE_ENV=production',
    ]);
    expect(sealingKeyProblems('', 'off', 'production')).toEqual([]);
    expect(sealingKeyProblems(JSON.stringify([{ kid: 'prod-1', jwk: ecJwk() }]), 'required', 'production')).toEqual([]);
  });
});
