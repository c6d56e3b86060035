import {
  bearerToken,
  constantTimeEqual,
  displayPrefix,
  generateSecretToken,
  hashSecretToken,
  randomBase62,
  tokenKindOf,
  wrongTokenKindMessage,
} from './secret-tokens';

describe('secret tokens', () => {
  it('generates prefixed base62 tokens carrying at least 256 bits', () => {
    const token = generateSecretToken('sop_');
    expect(token).toMatch(/^sop_[0-9A-Za-z]{43}$/);
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(generateSecretToken('sbot_')).toMatch(/^sbot_[0-9A-Za-z]{43}$/);
  });

  it('never repeats a token across many draws', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => generateSecretToken('sop_')));
    expect(seen.size).toBe(2000);
  });

  it('draws every base62 character with roughly equal frequency', () => {
    const counts = new Map<string, number>();
    for (const ch of randomBase62(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });

  it('stores a SHA-256 hex digest, never the token', () => {
    const hash = hashSecretToken('sop_abc');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashSecretToken('sop_abc'));
    expect(hash).not.toContain('abc');
  });

  it('compares equal strings as equal and anything else as different', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('shows only the kind and eight characters in list views', () => {
    expect(displayPrefix('sop_ABCDEFGHIJKLMNOP')).toBe('sop_ABCDEFGH');
    expect(displayPrefix('sbot_ABCDEFGHIJKLMNOP')).toBe('sbot_ABCDEFGH');
    expect(displayPrefix('ABCDEFGHIJKLMNOP')).toBe('ABCDEFGH');
  });

  it('reads a bearer token case-insensitively and rejects other schemes', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('reads only a single bearer token: a repeated header (an array), a second word or a missing token are no token', () => {
    expect(bearerToken(['Bearer abc'])).toBeUndefined();
    expect(bearerToken(['Bearer abc', 'Bearer def'])).toBeUndefined();
    expect(bearerToken('Bearer abc def')).toBeUndefined();
    expect(bearerToken('Bearer  abc  ')).toBe('abc');
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('xBearer abc')).toBeUndefined();
    expect(bearerToken('Bearerabc')).toBeUndefined();
  });

  it('tells application tokens, bot tokens and JWTs apart', () => {
    expect(tokenKindOf('sop_x')).toBe('sop_');
    expect(tokenKindOf('sbot_x')).toBe('sbot_');
    expect(tokenKindOf('a.b.c')).toBe('jwt');
    expect(tokenKindOf('garbage')).toBe('unknown');
    expect(tokenKindOf('a.b')).toBe('unknown');
    expect(tokenKindOf('a.b.c.d')).toBe('unknown');
    // The kind prefix wins over the shape: an application token is never taken for a JWT.
    expect(tokenKindOf('sop_a.b.c')).toBe('sop_');
    expect(tokenKindOf('sbot_a.b.c')).toBe('sbot_');
  });

  it('calls a bearer of no known kind malformed instead of taking it for an application or bot token', () => {
    expect(wrongTokenKindMessage('garbage', 'jwt')).toBe(
      'The bearer token is malformed: this route takes an account JWT, which has three dot-separated parts',
    );
    expect(wrongTokenKindMessage('eyJhbGciOi.only-two', 'sop_')).toBe(
      'The bearer token is malformed: this route takes an application token (sop_…), which starts with sop_',
    );
  });

  it('names the kind of a well-formed token that the route does not take', () => {
    expect(wrongTokenKindMessage('sop_abc', 'jwt')).toBe(
      'This route takes an account JWT, not an application token (sop_…)',
    );
    expect(wrongTokenKindMessage('sbot_abc', 'jwt')).toBe('This route takes an account JWT, not a bot token (sbot_…)');
    expect(wrongTokenKindMessage('sop_abc', 'sbot_')).toBe(
      'This route takes a bot token (sbot_…), not an application token (sop_…)',
    );
    expect(wrongTokenKindMessage('garbage', 'sbot_')).toBe(
      'The bearer token is malformed: this route takes a bot token (sbot_…), which starts with sbot_',
    );
    expect(wrongTokenKindMessage('a.b.c', 'sop_')).toBe(
      'This route takes an application token (sop_…), not an account JWT',
    );
  });
});
