import { AccountAuthConfig } from '@app/auth';
import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Min } from 'class-validator';

export const DEV_CREDENTIAL_KEY = '0'.repeat(64);

/** Environment of voucher-api; every variable has a development default. */
export class VoucherConfig extends AccountAuthConfig {
  override PORT = 3001;
  override DB_NAME = 'voucher';

  /** AES-256-GCM key (64 hex characters) for stored voucher credentials; also keys the lookup HMACs. */
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'CREDENTIAL_KEY must be 64 hexadecimal characters (32 bytes)' })
  CREDENTIAL_KEY = DEV_CREDENTIAL_KEY;

  @Type(() => Number)
  @IsInt()
  @Min(60_000)
  IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    if (this.NODE_ENV === 'production' && this.CREDENTIAL_KEY === DEV_CREDENTIAL_KEY) {
      problems.push('CREDENTIAL_KEY: the development default is refused when NODE_ENV=production');
    }
    return problems;
  }
}
