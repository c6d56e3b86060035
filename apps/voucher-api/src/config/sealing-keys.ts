import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SEALED_KEY_ALGORITHM, type SealedTransportMode } from './sealed-transport.mode';

/** A key pair of the service: `kid` names it in the JWKS and in a sealed call's protected header. */
export interface SealingKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicSealingJwk;
}

export interface PublicSealingJwk {
  kty: string;
  crv: string;
  x: string;
  y?: string;
  kid: string;
  use: 'enc';
  alg: typeof SEALED_KEY_ALGORITHM;
}

/**
 * The development key pair. It is public (docs/sealed-transport.md uses it for the test vector), so it
 * only ever stands in when SEALED_KEYS is empty outside production.
 */
export const DEV_SEALING_KEY = {
  kid: 'dev-sealed-1',
  jwk: {
    kty: 'EC',
    crv: 'P-256',
    x: 'IUouLGulijUAqc0TRnYZVMIPFlD-boNiWq5UYTjHYh8',
    y: 'hzCVAAjnz5wkxjVBlduWhVfh5cxUpSwyjEHl0wsFjhg',
    d: 'jXRSxO9ZyBlXwMgg4qT5eiU5hrJCO6v_0XpeYP_6CXA',
  },
} as const;

/** Curves ECDH-ES works over: NIST EC curves and X25519. */
const AGREEMENT_CURVES: Record<string, string> = {
  'P-256': 'ec',
  'P-384': 'ec',
  'P-521': 'ec',
  X25519: 'x25519',
};

const KID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const MAX_SEALING_KEYS = 8;

class SealingKeyError extends Error {}

function curveOf(publicJwk: JsonWebKey): string {
  if (publicJwk.kty === 'OKP') return publicJwk.crv ?? '';
  return publicJwk.crv ?? '';
}

function sealingKey(entry: unknown, index: number): SealingKey {
  const where = `key ${index + 1}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new SealingKeyError(`${where} must be an object { kid, jwk } or { kid, pem }`);
  }
  const { kid, jwk, pem, ...rest } = entry as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    throw new SealingKeyError(`${where} has unknown fields: ${Object.keys(rest).join(', ')}`);
  if (typeof kid !== 'string' || !KID_PATTERN.test(kid)) {
    throw new SealingKeyError(`${where}: kid must be 1-64 characters of A-Z a-z 0-9 . _ -`);
  }
  if ((jwk === undefined) === (pem === undefined)) throw new SealingKeyError(`${kid}: give exactly one of jwk and pem`);
  let privateKey: KeyObject;
  try {
    privateKey =
      jwk !== undefined
        ? createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' })
        : createPrivateKey({ key: String(pem), format: 'pem' });
  } catch {
    throw new SealingKeyError(`${kid}: not a readable private key`);
  }
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  const curve = curveOf(exported);
  if (AGREEMENT_CURVES[curve] !== privateKey.asymmetricKeyType) {
    throw new SealingKeyError(`${kid}: the key must be EC P-256, P-384, P-521 or X25519 (for ${SEALED_KEY_ALGORITHM})`);
  }
  const publicJwk: PublicSealingJwk = {
    kty: exported.kty!,
    crv: curve,
    x: exported.x!,
    ...(exported.y ? { y: exported.y } : {}),
    kid,
    use: 'enc',
    alg: SEALED_KEY_ALGORITHM,
  };
  return { kid, privateKey, publicJwk };
}

/** Parses SEALED_KEYS (newest first); an empty value means the development key. Throws on any defect. */
export function parseSealingKeys(value: string): SealingKey[] {
  if (value.trim() === '') return [sealingKey(DEV_SEALING_KEY, 0)];
  let entries: unknown;
  try {
    entries = JSON.parse(value);
  } catch {
    throw new SealingKeyError('must be a JSON array of { kid, jwk } or { kid, pem }');
  }
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_SEALING_KEYS) {
    throw new SealingKeyError(`must be a JSON array of 1 to ${MAX_SEALING_KEYS} keys, newest first`);
  }
  const keys = entries.map(sealingKey);
  const kids = new Set(keys.map((key) => key.kid));
  if (kids.size !== keys.length) throw new SealingKeyError('two keys share one kid');
  return keys;
}

function isDevelopmentKey(key: SealingKey): boolean {
  return key.publicJwk.x === DEV_SEALING_KEY.jwk.x && key.publicJwk.y === DEV_SEALING_KEY.jwk.y;
}

/** What is wrong with the sealing key configuration, for the boot-time config check. */
export function sealingKeyProblems(value: string, mode: SealedTransportMode, nodeEnv: string): string[] {
  try {
    const keys = parseSealingKeys(value);
    if (nodeEnv === 'production' && mode !== 'off') {
      if (value.trim() === '') return ['SEALED_KEYS: required when NODE_ENV=production and SEALED_TRANSPORT is on'];
      if (keys.some(isDevelopmentKey)) {
        return ['SEALED_KEYS: the development key is refused when NODE_ENV=production'];
      }
    }
    return [];
  } catch (error) {
    if (error instanceof SealingKeyError) return [`SEALED_KEYS: ${error.message}`];
    throw error;
  }
}
