import { ConfigError, loadConfig } from '@app/platform';
import { AccountAuthConfig, DEV_ACCOUNT_JWT_SECRET } from './auth.config';

const PRODUCTION = {
  NODE_ENV: 'production',
  COORDINATION_BACKEND: 'redis',
  ACCOUNT_JWT_ISSUER: 'https://id.example',
  ACCOUNT_JWT_AUDIENCE: 'console',
  ACCOUNT_JWT_SECRET: 's'.repeat(32),
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(AccountAuthConfig, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('AccountAuthConfig', () => {
  it('runs in development with the default secret and a week as the longest token lifetime', () => {
    const config = loadConfig(AccountAuthConfig, {});
    expect(config.ACCOUNT_JWT_SECRET).toBe(DEV_ACCOUNT_JWT_SECRET);
    expect(config.ACCOUNT_JWT_MAX_AGE).toBe(7 * 24 * 60 * 60);
    expect(loadConfig(AccountAuthConfig, { ACCOUNT_JWT_MAX_AGE: '60' }).ACCOUNT_JWT_MAX_AGE).toBe(60);
  });

  it('refuses a secret under 16 characters, a lifetime under a minute and a JWKS URL of another scheme, in any mode', () => {
    expect(problemsOf({ ACCOUNT_JWT_SECRET: 'short' }).join()).toMatch(/ACCOUNT_JWT_SECRET/);
    expect(problemsOf({ ACCOUNT_JWT_MAX_AGE: '59' }).join()).toMatch(/ACCOUNT_JWT_MAX_AGE/);
    expect(problemsOf({ ACCOUNT_JWKS_URL: 'ftp://id.example/jwks' }).join()).toMatch(/ACCOUNT_JWKS_URL/);
    // A cluster-internal host without a top-level domain is a valid JWKS address.
    expect(loadConfig(AccountAuthConfig, { ACCOUNT_JWKS_URL: 'http://identity:8080/jwks' }).ACCOUNT_JWKS_URL).toBe(
      'http://identity:8080/jwks',
    );
  });

  it('starts in production with an issuer, an audience and a secret of 32 bytes, or an https JWKS URL', () => {
    expect(problemsOf(PRODUCTION)).toEqual([]);
    const { ACCOUNT_JWT_SECRET: _secret, ...withoutSecret } = PRODUCTION;
    expect(problemsOf({ ...withoutSecret, ACCOUNT_JWKS_URL: 'https://id.example/jwks' })).toEqual([]);
  });

  it('refuses production without an issuer or an audience', () => {
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWT_ISSUER: '' })).toEqual([
      'ACCOUNT_JWT_ISSUER: required when NODE_ENV=production',
    ]);
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWT_AUDIENCE: '' })).toEqual([
      'ACCOUNT_JWT_AUDIENCE: required when NODE_ENV=production',
    ]);
  });

  it('refuses production with a JWKS URL over plain HTTP', () => {
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWKS_URL: 'http://id.example/jwks' })).toEqual([
      'ACCOUNT_JWKS_URL: must be https: when NODE_ENV=production',
    ]);
  });

  it('refuses production with the development secret, or one under 32 bytes, counting UTF-8 bytes', () => {
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWT_SECRET: DEV_ACCOUNT_JWT_SECRET })).toEqual([
      'ACCOUNT_JWT_SECRET: the development default is refused when NODE_ENV=production (set it or ACCOUNT_JWKS_URL)',
    ]);
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWT_SECRET: 's'.repeat(31) })).toEqual([
      'ACCOUNT_JWT_SECRET: at least 32 bytes when NODE_ENV=production',
    ]);
    // 16 characters of two bytes each: 32 bytes.
    expect(problemsOf({ ...PRODUCTION, ACCOUNT_JWT_SECRET: 'é'.repeat(16) })).toEqual([]);
  });

  it('keeps the checks of the base configuration', () => {
    expect(problemsOf({ ...PRODUCTION, COORDINATION_BACKEND: '' })).toEqual([
      'COORDINATION_BACKEND: production needs an explicit choice of redis or postgres',
    ]);
  });
});
