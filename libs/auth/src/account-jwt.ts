import { createRemoteJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey, SignJWT } from 'jose';

export const PLATFORM_ADMIN_ROLE = 'platform_admin';

export interface Account {
  id: string;
  name: string;
  roles: string[];
  isPlatformAdmin: boolean;
}

export interface AccountJwtOptions {
  secret?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** Longest time to expiry a token may have when it is presented (ACCOUNT_JWT_MAX_AGE), in seconds. */
  maxAgeSeconds?: number;
}

export class InvalidAccountToken extends Error {}

/** Verifies account JWTs: HS256 with a shared secret, or any JWKS-published key in production. */
export class AccountJwtVerifier {
  private readonly key: Uint8Array | JWTVerifyGetKey;

  constructor(private readonly options: AccountJwtOptions) {
    if (options.jwksUrl) this.key = createRemoteJWKSet(new URL(options.jwksUrl));
    else if (options.secret) this.key = new TextEncoder().encode(options.secret);
    else throw new Error('AccountJwtVerifier needs a secret or a JWKS URL');
  }

  async verify(token: string): Promise<Account> {
    let payload: JWTPayload;
    try {
      const verifyOptions = {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.options.jwksUrl ? undefined : ['HS256'],
        // A token without an expiry would stay valid forever once leaked.
        requiredClaims: ['exp'],
      };
      ({ payload } =
        this.key instanceof Uint8Array
          ? await jwtVerify(token, this.key, verifyOptions)
          : await jwtVerify(token, this.key, verifyOptions));
    } catch (error) {
      throw new InvalidAccountToken(rejectionReason(error as { code?: string; claim?: string }));
    }
    // A leaked token that expires in years is as good as one without an expiry.
    const maxAge = this.options.maxAgeSeconds ?? Infinity;
    if ((payload.exp as number) - Math.floor(Date.now() / 1000) > maxAge) {
      throw new InvalidAccountToken(`token expires more than ${maxAge} seconds from now (ACCOUNT_JWT_MAX_AGE)`);
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 128) {
      throw new InvalidAccountToken('token has no subject');
    }
    // The ids and names end up in PostgreSQL text columns, which cannot hold U+0000.
    if (payload.sub.includes('\u0000') || (typeof payload.name === 'string' && payload.name.includes('\u0000'))) {
      throw new InvalidAccountToken('token claims contain a NUL character');
    }
    const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    const name =
      typeof payload.name === 'string' && payload.name.trim() ? payload.name.trim().slice(0, 200) : payload.sub;
    return { id: payload.sub, name, roles, isPlatformAdmin: roles.includes(PLATFORM_ADMIN_ROLE) };
  }
}

function rejectionReason(error: { code?: string; claim?: string }): string {
  if (error.code === 'ERR_JWT_EXPIRED') return 'token expired';
  // jose names a claim only on claim errors; the one an expired token raises is answered above.
  if (error.claim === 'exp') return 'token has no expiry (exp)';
  return 'invalid token';
}

export interface DevTokenClaims {
  sub: string;
  name?: string;
  roles?: string[];
  expiresIn?: string | number;
  issuer?: string;
  audience?: string;
}

/** Signs an HS256 account JWT: the dev `npm run token` script and the tests use it. */
export async function signAccountJwt(secret: string, claims: DevTokenClaims): Promise<string> {
  let jwt = new SignJWT({ name: claims.name, roles: claims.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '12h');
  // Stryker disable next-line ConditionalExpression: an undefined issuer or audience is left out of the JSON anyway
  if (claims.issuer) jwt = jwt.setIssuer(claims.issuer);
  // Stryker disable next-line ConditionalExpression: an undefined audience is left out of the JSON anyway
  if (claims.audience) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
