import { exportJWK, generateKeyPair, KeyLike, SignJWT } from 'jose';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { AccountJwtVerifier, InvalidAccountToken, signAccountJwt } from './account-jwt';

const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const NOW = 1_800_000_000;
const key = new TextEncoder().encode(SECRET);

/** A token with exactly these claims (no defaults), HS256 unless told. */
function tokenWith(claims: Record<string, unknown>, alg = 'HS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg }).sign(key);
}

async function rejection(verifier: AccountJwtVerifier, token: string): Promise<string> {
  try {
    await verifier.verify(token);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidAccountToken);
    return (error as Error).message;
  }
  throw new Error('the token was accepted');
}

describe('AccountJwtVerifier with a shared secret', () => {
  const verifier = new AccountJwtVerifier({ secret: SECRET });

  // Only the clock is fixed (jose reads it through new Date()); timers and promises run as usual.
  beforeEach(() =>
    jest.useFakeTimers({
      now: NOW * 1000,
      doNotFake: [
        'nextTick',
        'setImmediate',
        'setTimeout',
        'setInterval',
        'clearTimeout',
        'clearInterval',
        'queueMicrotask',
      ],
    }),
  );
  afterEach(() => jest.useRealTimers());

  it('needs a secret or a JWKS URL', () => {
    expect(() => new AccountJwtVerifier({})).toThrow('AccountJwtVerifier needs a secret or a JWKS URL');
    expect(() => new AccountJwtVerifier({ secret: '' })).toThrow('needs a secret or a JWKS URL');
  });

  it('gives the account of a valid token: subject, trimmed name, string roles, staff flag', async () => {
    const token = await tokenWith({
      sub: 'u-1',
      name: '  Ada  ',
      roles: ['reader', 7, 'platform_admin'],
      exp: NOW + 60,
    });
    expect(await verifier.verify(token)).toEqual({
      id: 'u-1',
      name: 'Ada',
      roles: ['reader', 'platform_admin'],
      isPlatformAdmin: true,
    });
  });

  it('names the account by its subject when the name is missing, blank or not a string, and has no roles without an array', async () => {
    for (const name of [undefined, '   ', 42]) {
      const account = await verifier.verify(
        await tokenWith({ sub: 'u-2', name, roles: 'platform_admin', exp: NOW + 60 }),
      );
      expect(account).toEqual({ id: 'u-2', name: 'u-2', roles: [], isPlatformAdmin: false });
    }
  });

  it('keeps the first 200 characters of a long name', async () => {
    const account = await verifier.verify(await tokenWith({ sub: 'u-3', name: 'n'.repeat(250), exp: NOW + 60 }));
    expect(account.name).toBe('n'.repeat(200));
  });

  it('refuses a token signed with another secret, and garbage, as "invalid token"', async () => {
    const other = await new SignJWT({ sub: 'u' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(NOW + 60)
      .sign(new TextEncoder().encode('another-secret-of-at-least-32-bytes!'));
    expect(await rejection(verifier, other)).toBe('invalid token');
    expect(await rejection(verifier, 'a.b.c')).toBe('invalid token');
  });

  it('takes only HS256 with a shared secret: HS384 with the same secret is refused', async () => {
    expect(await rejection(verifier, await tokenWith({ sub: 'u', exp: NOW + 60 }, 'HS384'))).toBe('invalid token');
  });

  it('refuses a token without an expiry, and an expired one, each saying so', async () => {
    expect(await rejection(verifier, await tokenWith({ sub: 'u' }))).toBe('token has no expiry (exp)');
    expect(await rejection(verifier, await tokenWith({ sub: 'u', exp: NOW - 1 }))).toBe('token expired');
  });

  it('refuses a token without a subject, with an empty one or one longer than 128 characters', async () => {
    for (const sub of [undefined, '', 's'.repeat(129)]) {
      expect(await rejection(verifier, await tokenWith({ sub, exp: NOW + 60 }))).toBe('token has no subject');
    }
    expect((await verifier.verify(await tokenWith({ sub: 's'.repeat(128), exp: NOW + 60 }))).id).toBe('s'.repeat(128));
  });

  it('refuses a NUL character in the subject or the name (PostgreSQL text cannot hold it)', async () => {
    for (const claims of [{ sub: 'u\u0000' }, { sub: 'u', name: 'A\u0000da' }]) {
      expect(await rejection(verifier, await tokenWith({ ...claims, exp: NOW + 60 }))).toBe(
        'token claims contain a NUL character',
      );
    }
  });

  it('refuses a token that expires further away than the configured maximum age, not one at it', async () => {
    const bounded = new AccountJwtVerifier({ secret: SECRET, maxAgeSeconds: 3600 });
    expect((await bounded.verify(await tokenWith({ sub: 'u', exp: NOW + 3600 }))).id).toBe('u');
    expect(await rejection(bounded, await tokenWith({ sub: 'u', exp: NOW + 3601 }))).toBe(
      'token expires more than 3600 seconds from now (ACCOUNT_JWT_MAX_AGE)',
    );
    expect((await verifier.verify(await tokenWith({ sub: 'u', exp: NOW + 10 * 365 * 86_400 }))).id).toBe('u');
  });

  it('checks the issuer and audience it is configured with', async () => {
    const strict = new AccountJwtVerifier({ secret: SECRET, issuer: 'https://id.example', audience: 'console' });
    const good = { sub: 'u', exp: NOW + 60, iss: 'https://id.example', aud: 'console' };
    expect((await strict.verify(await tokenWith(good))).id).toBe('u');
    expect(await rejection(strict, await tokenWith({ ...good, iss: 'https://other.example' }))).toBe('invalid token');
    expect(await rejection(strict, await tokenWith({ ...good, aud: 'other' }))).toBe('invalid token');
  });
});

describe('signAccountJwt', () => {
  it('signs HS256 with the subject, name, roles, a 12 hour expiry by default, and issuer and audience when given', async () => {
    const verifier = new AccountJwtVerifier({
      secret: SECRET,
      issuer: 'iss',
      audience: 'aud',
      maxAgeSeconds: 12 * 3600,
    });
    const token = await signAccountJwt(SECRET, {
      sub: 'u-9',
      name: 'Nine',
      roles: ['x'],
      issuer: 'iss',
      audience: 'aud',
    });
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload.exp - payload.iat).toBe(12 * 3600);
    expect(await verifier.verify(token)).toEqual({ id: 'u-9', name: 'Nine', roles: ['x'], isPlatformAdmin: false });
  });

  it('leaves issuer and audience out unless given, and gives no roles by default', async () => {
    const token = await signAccountJwt(SECRET, { sub: 'u-8', expiresIn: '60s' });
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(payload).not.toHaveProperty('iss');
    expect(payload).not.toHaveProperty('aud');
    expect(payload.roles).toEqual([]);
    expect(payload.exp - payload.iat).toBe(60);
  });
});

describe('AccountJwtVerifier with a JWKS URL', () => {
  let server: Server;
  let jwksUrl: string;
  let privateKey: KeyLike;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' };
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts a token signed by a published key, and refuses an HS256 one made with the URL as its secret', async () => {
    const verifier = new AccountJwtVerifier({ jwksUrl, secret: SECRET });
    const token = await new SignJWT({ sub: 'u-jwks' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await verifier.verify(token)).id).toBe('u-jwks');
    // With a JWKS configured the shared secret is not a key at all.
    const hs = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(key);
    expect(await rejection(verifier, hs)).toBe('invalid token');
  });
});
