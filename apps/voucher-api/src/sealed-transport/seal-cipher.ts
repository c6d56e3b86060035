import { Inject, Injectable } from '@nestjs/common';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose';
import { createPublicKey, diffieHellman, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { VoucherConfig } from '../config/voucher.config';
import { VoucherErrors } from '../voucher-errors';
import { parseSealingKeys, PublicSealingJwk, SealingKey } from '../config/sealing-keys';
import { SEALED_CONTENT_ALGORITHM, SEALED_KEY_ALGORITHM } from '../config/sealed-transport.mode';

const PINNED = {
  keyManagementAlgorithms: [SEALED_KEY_ALGORITHM],
  contentEncryptionAlgorithms: [SEALED_CONTENT_ALGORITHM],
};

/** The members a client's public answer key may have; a private member (`d`) is refused. */
const PUBLIC_JWK_MEMBERS = new Set(['kty', 'crv', 'x', 'y', 'kid', 'use', 'alg', 'key_ops', 'ext']);
/** The curves an answer is sealed to, with their key type and the octets of a coordinate (RFC 7518, RFC 8037). */
const ANSWER_KEY_CURVES = new Map<string, { kty: 'EC' | 'OKP'; octets: number }>([
  ['P-256', { kty: 'EC', octets: 32 }],
  ['P-384', { kty: 'EC', octets: 48 }],
  ['P-521', { kty: 'EC', octets: 66 }],
  ['X25519', { kty: 'OKP', octets: 32 }],
]);
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** How many octets an unpadded base64url text holds; -1 for a length no encoding has. */
function base64urlOctets(text: string): number {
  return text.length % 4 === 1 ? -1 : Math.floor((text.length * 3) / 4);
}

/**
 * The JOSE side of sealed transport, with the algorithms pinned: opens a compact JWE with the key its
 * `kid` names and seals an answer to the caller's ephemeral public key.
 */
@Injectable()
export class SealCipher {
  private readonly keys: Map<string, SealingKey>;
  readonly jwks: { keys: PublicSealingJwk[] };
  /**
   * One private key per answer curve, made at start and used only to try a key agreement with a
   * caller's answer key. The result is thrown away, and whether it fails does not depend on this key
   * (an X25519 scalar is a multiple of 8, so only a point of small order gives zero), so it reveals nothing.
   */
  private readonly probes = new Map(
    [...ANSWER_KEY_CURVES.keys()].map((crv) => [
      crv,
      crv === 'X25519'
        ? generateKeyPairSync('x25519').privateKey
        : generateKeyPairSync('ec', { namedCurve: crv }).privateKey,
    ]),
  );

  constructor(@Inject(VoucherConfig) config: VoucherConfig) {
    const keys = parseSealingKeys(config.SEALED_KEYS);
    this.keys = new Map(keys.map((key) => [key.kid, key]));
    this.jwks = { keys: keys.map((key) => key.publicJwk) };
  }

  /** The plaintext of a sealed call; every way it can fail is a 400 that names what was wrong. */
  async open(compact: string): Promise<Uint8Array> {
    const header = this.protectedHeader(compact);
    if (header.alg !== SEALED_KEY_ALGORITHM || header.enc !== SEALED_CONTENT_ALGORITHM) {
      throw VoucherErrors.error(
        'SEALED_ALGORITHM_NOT_ALLOWED',
        `alg ${String(header.alg)} / enc ${String(header.enc)}: only ${SEALED_KEY_ALGORITHM} / ${SEALED_CONTENT_ALGORITHM} are accepted`,
      );
    }
    const key = typeof header.kid === 'string' ? this.keys.get(header.kid) : undefined;
    if (!key) {
      throw VoucherErrors.error(
        'SEALED_KEY_UNKNOWN',
        `kid must name a key of ${this.jwks.keys.map((k) => k.kid).join(', ')}`,
      );
    }
    if (header.zip !== undefined || header.crit !== undefined) {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'zip and crit are not accepted in a sealed call');
    }
    try {
      const { plaintext } = await compactDecrypt(compact, key.privateKey, PINNED);
      return plaintext;
    } catch {
      // Tag mismatch, a key agreement on another curve, a wrong key: all the same to the caller.
      throw VoucherErrors.error('SEALED_REQUEST_UNREADABLE');
    }
  }

  /**
   * The caller's ephemeral public key, proven usable when the call is opened: its shape is checked, its
   * point must lie on its curve, and a key agreement with it must give a shared secret (an X25519 point
   * of small order gives none). Sealing the answer is the same agreement, so it cannot fail on the key
   * once the call has run.
   */
  answerKey(jwk: Record<string, unknown>): KeyObject {
    const publicJwk = this.answerKeyShape(jwk);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: publicJwk, format: 'jwk' });
    } catch {
      throw this.badAnswerKey('SEALED_ANSWER_KEY_UNUSABLE', `is not a point of ${publicJwk.crv}`);
    }
    try {
      diffieHellman({ privateKey: this.probes.get(publicJwk.crv!)!, publicKey: key });
    } catch {
      throw this.badAnswerKey(
        'SEALED_ANSWER_KEY_UNUSABLE',
        'gives no shared secret in a key agreement (a point of small order)',
      );
    }
    return key;
  }

  /** The members of an answer key that make the key, each of its curve's exact length. */
  private answerKeyShape(jwk: Record<string, unknown>): JsonWebKey {
    const crv = typeof jwk.crv === 'string' ? jwk.crv : '';
    const curve = ANSWER_KEY_CURVES.get(crv);
    if (!curve || jwk.kty !== curve.kty || Object.keys(jwk).some((member) => !PUBLIC_JWK_MEMBERS.has(member))) {
      throw this.badAnswerKey(
        'SEALED_REQUEST_MALFORMED',
        'must be a public EC P-256/P-384/P-521 or OKP X25519 JWK without private members',
      );
    }
    if (curve.kty === 'OKP' && jwk.y !== undefined) {
      throw this.badAnswerKey('SEALED_REQUEST_MALFORMED', 'must have no y: an X25519 key is its x alone');
    }
    const shape: JsonWebKey = { kty: curve.kty, crv };
    for (const name of curve.kty === 'EC' ? ['x', 'y'] : ['x']) {
      const value = jwk[name];
      const octets = typeof value === 'string' && BASE64URL.test(value) ? base64urlOctets(value) : -1;
      // RFC 7518 wants EC coordinates at full length, but some libraries drop a leading zero octet; such
      // a key is still a point of its curve, so shorter ones are taken (an X25519 key is always 32 octets).
      if (octets < 1 || octets > curve.octets || (curve.kty === 'OKP' && octets !== curve.octets)) {
        throw this.badAnswerKey(
          'SEALED_REQUEST_MALFORMED',
          `${name} must be the ${curve.octets} octets of a ${crv} coordinate, base64url without padding`,
        );
      }
      shape[name as 'x' | 'y'] = value as string;
    }
    return shape;
  }

  /** A compact JWE of `plaintext` to the caller's answer key; the `cty` says the plaintext is JSON. */
  seal(plaintext: Uint8Array, answerKey: KeyObject): Promise<string> {
    return new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: SEALED_KEY_ALGORITHM, enc: SEALED_CONTENT_ALGORITHM, cty: 'json' })
      .encrypt(answerKey);
  }

  private protectedHeader(compact: string): ProtectedHeaderParameters {
    if (compact.split('.').length !== 5) {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The body must be one compact JWE (five base64url parts)');
    }
    try {
      return decodeProtectedHeader(compact);
    } catch {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The protected header is not base64url JSON');
    }
  }

  private badAnswerKey(code: 'SEALED_REQUEST_MALFORMED' | 'SEALED_ANSWER_KEY_UNUSABLE', problem: string) {
    return VoucherErrors.error(code, `response_key ${problem}`, { details: [{ field: 'response_key', problem }] });
  }
}
