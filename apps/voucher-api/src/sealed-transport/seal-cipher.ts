import { Inject, Injectable } from '@nestjs/common';
import {
  CompactEncrypt,
  compactDecrypt,
  decodeProtectedHeader,
  importJWK,
  type KeyLike,
  type ProtectedHeaderParameters,
} from 'jose';
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
const ANSWER_KEY_CURVES: Record<string, string[]> = { EC: ['P-256', 'P-384', 'P-521'], OKP: ['X25519'] };

/**
 * The JOSE side of sealed transport, with the algorithms pinned: opens a compact JWE with the key its
 * `kid` names and seals an answer to the caller's ephemeral public key.
 */
@Injectable()
export class SealCipher {
  private readonly keys: Map<string, SealingKey>;
  readonly jwks: { keys: PublicSealingJwk[] };

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

  /** The caller's ephemeral public key, checked when the call is opened so the answer can always be sealed. */
  async answerKey(jwk: Record<string, unknown>): Promise<KeyLike> {
    const members = Object.keys(jwk);
    const curves = ANSWER_KEY_CURVES[String(jwk.kty)];
    if (members.some((member) => !PUBLIC_JWK_MEMBERS.has(member)) || !curves?.includes(String(jwk.crv))) {
      throw this.badAnswerKey('must be a public EC P-256/P-384/P-521 or OKP X25519 JWK without private members');
    }
    try {
      return (await importJWK(
        { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as never,
        SEALED_KEY_ALGORITHM,
      )) as KeyLike;
    } catch {
      throw this.badAnswerKey('is not a valid public key');
    }
  }

  /** A compact JWE of `plaintext` to the caller's answer key; the `cty` says the plaintext is JSON. */
  seal(plaintext: Uint8Array, answerKey: KeyLike): Promise<string> {
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

  private badAnswerKey(problem: string) {
    return VoucherErrors.error('SEALED_REQUEST_MALFORMED', `response_key ${problem}`, {
      details: [{ field: 'response_key', problem }],
    });
  }
}
