import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits (43 × log2(62) ≈ 256), well above the required 32 bytes. */
const TOKEN_BODY_LENGTH = 43;
/** How much of a token list views may show: the kind prefix plus a few characters. */
const DISPLAY_PREFIX_LENGTH = 8;

export type TokenKind = 'sop_' | 'sbot_';

/** Uniform base62 from rejection sampling (values ≥ 248 are discarded, so there is no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Stryker disable next-line ArithmeticOperator: fewer bytes a round only means more rounds
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateSecretToken(kind: TokenKind): string {
  return `${kind}${randomBase62(TOKEN_BODY_LENGTH)}`;
}

/** Only this digest is stored; the plaintext exists in exactly one response. */
export function hashSecretToken(token: string): string {
  return createHash('sha256').update(Buffer.from(token)).digest('hex');
}

export function displayPrefix(token: string): string {
  const kind = token.startsWith('sbot_') ? 'sbot_' : token.startsWith('sop_') ? 'sop_' : '';
  return token.slice(0, kind.length + DISPLAY_PREFIX_LENGTH);
}

/** Constant-time equality of two strings (lengths may differ without leaking where they differ). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  // Stryker disable next-line ConditionalExpression: equal SHA-256 digests already mean equal lengths
  return timingSafeEqual(left, right) && a.length === b.length;
}

export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  if (typeof authorization !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

export function tokenKindOf(token: string): TokenKind | 'jwt' | 'unknown' {
  if (token.startsWith('sop_')) return 'sop_';
  if (token.startsWith('sbot_')) return 'sbot_';
  return token.split('.').length === 3 ? 'jwt' : 'unknown';
}

const TOKEN_KIND_NAMES: Record<TokenKind | 'jwt', string> = {
  jwt: 'an account JWT',
  sop_: 'an application token (sop_…)',
  sbot_: 'a bot token (sbot_…)',
};
const TOKEN_KIND_SHAPES: Record<TokenKind | 'jwt', string> = {
  jwt: 'has three dot-separated parts',
  sop_: 'starts with sop_',
  sbot_: 'starts with sbot_',
};

/**
 * Why a route refuses a bearer token of another kind than `expected`: a token of a known kind is named
 * ("not a bot token"), and one of no known kind is called malformed instead of being taken for one.
 */
export function wrongTokenKindMessage(token: string, expected: TokenKind | 'jwt'): string {
  const kind = tokenKindOf(token);
  if (kind === 'unknown') {
    return `The bearer token is malformed: this route takes ${TOKEN_KIND_NAMES[expected]}, which ${TOKEN_KIND_SHAPES[expected]}`;
  }
  return `This route takes ${TOKEN_KIND_NAMES[expected]}, not ${TOKEN_KIND_NAMES[kind]}`;
}
