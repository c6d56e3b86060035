import { ServiceConfig } from '@app/platform';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Min, MinLength } from 'class-validator';

export const DEV_ACCOUNT_JWT_SECRET = 'dev-account-secret-change-me';

/** HS256 keys shorter than the hash output (RFC 7518 section 3.2) can be brute-forced offline from one token. */
const MIN_PRODUCTION_SECRET_BYTES = 32;

/** Account-JWT settings for a service that accepts console or end-user calls. */
export class AccountAuthConfig extends ServiceConfig {
  @IsString()
  @MinLength(16)
  ACCOUNT_JWT_SECRET = DEV_ACCOUNT_JWT_SECRET;

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['https', 'http'] })
  ACCOUNT_JWKS_URL?: string;

  @IsOptional()
  @IsString()
  ACCOUNT_JWT_ISSUER?: string;

  @IsOptional()
  @IsString()
  ACCOUNT_JWT_AUDIENCE?: string;

  /**
   * Longest remaining lifetime, in seconds, an account JWT may have when presented: a token whose `exp`
   * is further away is refused (401), so a leaked long-lived token is not accepted at all.
   */
  @Type(() => Number)
  @IsInt()
  @Min(60)
  ACCOUNT_JWT_MAX_AGE = 7 * 24 * 60 * 60;

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    if (this.NODE_ENV === 'production') problems.push(...this.productionProblems());
    return problems;
  }

  /**
   * A token minted for another system (no audience), by another issuer, fetched over plain HTTP or
   * signed with a guessable secret must never open the console: production refuses to start instead.
   */
  private productionProblems(): string[] {
    const problems: string[] = [];
    if (!this.ACCOUNT_JWT_ISSUER) problems.push('ACCOUNT_JWT_ISSUER: required when NODE_ENV=production');
    if (!this.ACCOUNT_JWT_AUDIENCE) problems.push('ACCOUNT_JWT_AUDIENCE: required when NODE_ENV=production');
    if (this.ACCOUNT_JWKS_URL) {
      if (!this.ACCOUNT_JWKS_URL.startsWith('https:')) {
        problems.push('ACCOUNT_JWKS_URL: must be https: when NODE_ENV=production');
      }
      return problems;
    }
    if (this.ACCOUNT_JWT_SECRET === DEV_ACCOUNT_JWT_SECRET) {
      problems.push(
        'ACCOUNT_JWT_SECRET: the development default is refused when NODE_ENV=production (set it or ACCOUNT_JWKS_URL)',
      );
    } else if (Buffer.byteLength(this.ACCOUNT_JWT_SECRET) < MIN_PRODUCTION_SECRET_BYTES) {
      problems.push(`ACCOUNT_JWT_SECRET: at least ${MIN_PRODUCTION_SECRET_BYTES} bytes when NODE_ENV=production`);
    }
    return problems;
  }
}
