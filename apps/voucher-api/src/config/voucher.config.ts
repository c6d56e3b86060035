import { AccountAuthConfig, DEV_INTERNAL_API_TOKEN, internalApiTokenProblems } from '@app/auth';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { resolveRateLimits } from './rate-limit.policy';
import { SEALED_TRANSPORT_MODES, SealedTransportMode } from './sealed-transport.mode';
import { sealingKeyProblems } from './sealing-keys';

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

  /**
   * Per-minute limits of runtime endpoints that differ from the defaults, e.g. `redeem=1000,issue=60`
   * (names in rate-limits/rate-limit.policy.ts).
   */
  @IsString()
  @Matches(/^$|^[a-z_.]+=\d+(,[a-z_.]+=\d+)*$/, { message: 'RATE_LIMITS must look like name=limit,name=limit' })
  RATE_LIMITS = '';

  /** Failed verify/redeem look-ups a token may make per window before both answer 429. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100_000)
  GUESS_LIMIT = 20;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  GUESS_WINDOW_SECONDS = 600;

  /** How long a token's look-up is reused in process (0 turns it off); changes reach every instance through the channel bus. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(60_000)
  APP_TOKEN_CACHE_MS = 5000;

  /** bot-api, which holds the platform's files: a template's cover_file_id is checked there. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  BOT_API_URL = 'http://127.0.0.1:3002';

  /** The shared secret of bot-api's internal routes; bot-api must be given the same value. */
  @IsString()
  @MinLength(16)
  INTERNAL_API_TOKEN = DEV_INTERNAL_API_TOKEN;

  /** How long a cover_file_id check may wait for bot-api before the template call answers 503. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(30_000)
  BOT_API_TIMEOUT_MS = 2000;

  /** `off`, `optional` (plain and sealed runtime calls) or `required` (runtime calls only sealed): docs/sealed-transport.md. */
  @IsIn(SEALED_TRANSPORT_MODES)
  SEALED_TRANSPORT: SealedTransportMode = 'off';

  /**
   * The key pairs that open sealed calls, newest first, as JSON: `[{"kid":"…","jwk":{…}}]` or
   * `[{"kid":"…","pem":"-----BEGIN PRIVATE KEY-----…"}]`. Empty: the development key (refused in production).
   */
  @IsString()
  SEALED_KEYS = '';

  /** How far a sealed call's `iat` may lie from the server's clock; its id is remembered this long. */
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(3600)
  SEALED_MAX_AGE_SECONDS = 300;

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    problems.push(...internalApiTokenProblems(this.INTERNAL_API_TOKEN, this.NODE_ENV));
    if (this.NODE_ENV === 'production' && this.CREDENTIAL_KEY === DEV_CREDENTIAL_KEY) {
      problems.push('CREDENTIAL_KEY: the development default is refused when NODE_ENV=production');
    }
    problems.push(...sealingKeyProblems(this.SEALED_KEYS, this.SEALED_TRANSPORT, this.NODE_ENV));
    try {
      resolveRateLimits(this.RATE_LIMITS);
    } catch (error) {
      problems.push(`RATE_LIMITS: ${(error as Error).message}`);
    }
    return problems;
  }
}
