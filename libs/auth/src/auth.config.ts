import { ServiceConfig } from '@app/platform';
import { IsOptional, IsString, IsUrl, MinLength } from 'class-validator';

export const DEV_ACCOUNT_JWT_SECRET = 'dev-account-secret-change-me';

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

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    if (
      this.NODE_ENV === 'production' &&
      !this.ACCOUNT_JWKS_URL &&
      this.ACCOUNT_JWT_SECRET === DEV_ACCOUNT_JWT_SECRET
    ) {
      problems.push(
        'ACCOUNT_JWT_SECRET: the development default is refused when NODE_ENV=production (set it or ACCOUNT_JWKS_URL)',
      );
    }
    return problems;
  }
}
