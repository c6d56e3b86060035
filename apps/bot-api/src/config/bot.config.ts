import { AccountAuthConfig, DEV_INTERNAL_API_TOKEN, internalApiTokenProblems } from '@app/auth';
import { EnvBoolean } from '@app/platform';
import { RATE_LIMITS_FORMAT, resolveRateLimits } from '@app/rate-limits';
import { DEV_WEBHOOK_SECRET_KEY, isIpOrCidr } from '@app/bot-delivery';
import { DEFAULT_ROUTE_RATE_LIMITS } from './route-rate-limits.config';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import {
  DEV_FILE_URL_SIGNING_KEY,
  FILE_STORAGE_DRIVERS,
  FileStorageDriverName,
  fileStorageProblems,
} from './file-storage.config';

export const DEV_BOT_TOKEN_ENCRYPTION_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

/** Environment of bot-api; every variable has a development default. */
export class BotConfig extends AccountAuthConfig {
  override PORT = 3002;
  override DB_NAME = 'bot';

  /** AES-256-GCM key (64 hex characters) guarding the approval token until its one read. */
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'BOT_TOKEN_ENCRYPTION_KEY must be 64 hexadecimal characters' })
  BOT_TOKEN_ENCRYPTION_KEY = DEV_BOT_TOKEN_ENCRYPTION_KEY;

  /** Global default send quotas per bot; a bot's own rate_limits override them. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  BOT_DEFAULT_SEND_PER_SEC = 30;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  BOT_DEFAULT_SEND_PER_MIN = 1200;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  BOT_DEFAULT_SEND_PER_DAY = 100000;

  /** How long one DNS query of a webhook host may take (c-ares, two tries) before the host counts as unresolved. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  WEBHOOK_DNS_TIMEOUT_MS = 3000;

  /**
   * How long a webhook's previous secret_token stays valid after setWebhook sets a new one: every request
   * is signed with both meanwhile, so receivers can roll without dropping one. 0 switches at once.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  WEBHOOK_ROTATION_OVERLAP_HOURS = 24;

  /**
   * Per-minute request limits that differ from the defaults, e.g. `client.write=300,verify_token=60`
   * (names in rate-limits/route-rate-limits.ts).
   */
  @IsString()
  @Matches(RATE_LIMITS_FORMAT, { message: 'RATE_LIMITS must look like name=limit,name=limit' })
  RATE_LIMITS = '';

  /**
   * How long a bot token's look-up is reused without reading the database. Changes to a bot reach
   * every instance at once through the channel bus; this bounds staleness only if such a message is lost. 0 turns it off.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  BOT_TOKEN_CACHE_MS = 5000;

  /**
   * An account's directory entry (id, name) is written at most once per this period by one process
   * while its name stays the same; a changed name is written on its first call. 0 writes on every call.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  USER_DIRECTORY_CACHE_MS = 60000;

  /**
   * How long a bot may answer a callback query (answerCallbackQuery) or an inline query
   * (answerInlineQuery) after the user's click or query; later answers get 410 QUERY_EXPIRED.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  CALLBACK_ANSWER_WINDOW_MS = 5000;

  /**
   * How long an Idempotency-Key of a send, edit, forward or copy and its stored answer are kept (then
   * purged hourly); a retry after that sends again.
   */
  @Type(() => Number)
  @IsInt()
  @Min(60_000)
  IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

  /** Unconfirmed Updates are kept this long for getUpdates, then dropped with their whole day (delivery-partitions). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  UPDATES_RETENTION_HOURS = 24;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  UPDATES_PURGE_INTERVAL_MS = 600000;

  /**
   * A waiting getUpdates also re-reads the database this often, so a lost wake-up
   * (outage, reconnect) delays an Update by seconds instead of the whole long-poll timeout.
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  UPDATES_POLL_RECHECK_MS = 5000;

  /** Dead letters a staff redrive job restarts per bot and second, unless the job asks for another rate. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  REDRIVE_RATE_PER_BOT = 10;

  /** How often a redrive job takes a step (and, in the Redis mode, how often the redrive tick runs). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  REDRIVE_STEP_MS = 1000;

  /**
   * How often the redrive tick runs, once per cluster: it starts the automatic redrives of recovered
   * bots and queues a running redrive job whose queue job is gone. 0: REDRIVE_STEP_MS in the Redis mode;
   * in the PostgreSQL-only mode, where each run is about eight statements, at least 30 s
   * (docs/operations.md, "Choosing a mode").
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  REDRIVE_TICK_MS = 0;

  /** A redrive job whose worker stopped renewing its queue lock this long ago (a crashed instance) is taken over. */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  REDRIVE_LEASE_MS = 30000;

  /** Whether this instance works redrive jobs and schedules the redrive tick (every replica may; the queue keeps one worker per job). */
  @EnvBoolean()
  REDRIVE_WORKER_ENABLED = true;

  /** Lets webhook URLs resolve to private, loopback or link-local addresses: development and tests only. */
  @EnvBoolean()
  WEBHOOK_ALLOW_PRIVATE = false;

  /** AES-256-GCM key (64 hex characters) sealing webhook secret tokens; bot-dispatcher needs the same key. */
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'WEBHOOK_SECRET_KEY must be 64 hexadecimal characters' })
  WEBHOOK_SECRET_KEY = DEV_WEBHOOK_SECRET_KEY;

  /**
   * Shared secret other platform services (voucher-api) present on the internal routes
   * (`/api/v1/bots/internal/...`); voucher-api needs the same value.
   */
  @IsString()
  @MinLength(16)
  INTERNAL_API_TOKEN = DEV_INTERNAL_API_TOKEN;

  /** Comma-separated addresses the dispatcher connects from, shown by getWebhookInfo for receivers' allow lists. */
  @IsString()
  PLATFORM_EGRESS_IPS = '';

  /** Where file bytes live: `disk` (FILE_STORAGE_DIR, served by bot-api's signed routes) or `s3` (any S3-compatible store). */
  @IsIn(FILE_STORAGE_DRIVERS)
  FILE_STORAGE_DRIVER: FileStorageDriverName = 'disk';

  /** Disk driver: the directory that holds the bytes (a persistent volume in production). */
  @IsString()
  FILE_STORAGE_DIR = 'var/files';

  /** Disk driver: the address clients reach bot-api at, prefixed to the signed upload and download URLs. */
  @Matches(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, { message: 'FILE_PUBLIC_BASE_URL must be an http(s) URL without query' })
  FILE_PUBLIC_BASE_URL = 'http://localhost:3002';

  /** Disk driver: HMAC-SHA256 key (64 hex characters) signing upload and download URLs. */
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'FILE_URL_SIGNING_KEY must be 64 hexadecimal characters' })
  FILE_URL_SIGNING_KEY = DEV_FILE_URL_SIGNING_KEY;

  /** How long an upload URL (step 2) and its pending upload stay valid; uncompleted uploads are purged after. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(604800)
  FILE_UPLOAD_TTL_SECONDS = 900;

  /** Lifetime of the download URLs of getFile, upload-complete and message lists (signed when read). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(604800)
  FILE_DOWNLOAD_URL_TTL_SECONDS = 3600;

  /**
   * Lifetime of the `file.url` inside Updates, which are written when the message is sent and delivered
   * later (webhook retries, getUpdates within UPDATES_RETENTION_HOURS): at least that retention, and by
   * default no more, since a link outlives the message being deleted and the reader leaving the chat.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(604800)
  FILE_UPDATE_URL_TTL_SECONDS = 86400;

  /** How often expired, never completed uploads are purged (rows and bytes). */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  FILE_UPLOAD_PURGE_INTERVAL_MS = 300000;

  /** S3 driver: endpoint of an S3-compatible store (MinIO, R2, …); empty for AWS itself. */
  @IsString()
  FILE_S3_ENDPOINT = '';

  @IsString()
  FILE_S3_BUCKET = '';

  @IsString()
  FILE_S3_REGION = 'us-east-1';

  /** S3 driver credentials; both empty uses the SDK's default chain (IAM role, web identity, …). */
  @IsString()
  FILE_S3_ACCESS_KEY_ID = '';

  @IsString()
  FILE_S3_SECRET_ACCESS_KEY = '';

  /** S3 driver: path-style addressing (`endpoint/bucket/key`), needed by MinIO and most local stores. */
  @EnvBoolean()
  FILE_S3_FORCE_PATH_STYLE = false;

  /**
   * How long the Telegram face waits for a multipart body to arrive (1000–600000 ms); a slower upload is
   * answered 408 and its connection closed, so it cannot hold one of the process's upload slots longer.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  TELEGRAM_UPLOAD_TIMEOUT_MS = 60_000;

  /**
   * Refused virtual-member calls written to the audit log per bot and minute; further refusals in the
   * minute are answered but not written, so a bot cannot fill the table by calling while refused.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VIRTUAL_MEMBER_AUDIT_REFUSALS_PER_MINUTE = 60;

  /** Virtual-member audit entries older than this are purged hourly. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS = 90;

  /**
   * Bot token look-ups that found no bot, per client address and minute; past it the address gets 429
   * before its next look-up reaches the database.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  BOT_TOKEN_FAILURES_PER_MINUTE = 30;

  /**
   * Bytes one bot may hold in files and pending uploads (the declared size of each upload counts from
   * its credentials on); past it, upload-credentials and multipart uploads answer 403 STORAGE_QUOTA_EXCEEDED.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  BOT_STORAGE_QUOTA_BYTES = 1024 * 1024 * 1024;

  /**
   * A file that no message references (never sent, or its send refused) and that no other service
   * checked as its own (a voucher cover) is purged, row and bytes, this many hours after its upload.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  FILE_UNREFERENCED_RETENTION_HOURS = 168;

  get platformEgressIps(): string[] {
    return this.PLATFORM_EGRESS_IPS.split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
  }

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    try {
      resolveRateLimits(DEFAULT_ROUTE_RATE_LIMITS, this.RATE_LIMITS);
    } catch (error) {
      problems.push(`RATE_LIMITS: ${(error as Error).message}`);
    }
    problems.push(...internalApiTokenProblems(this.INTERNAL_API_TOKEN, this.NODE_ENV));
    const badEgress = this.platformEgressIps.filter((entry) => !isIpOrCidr(entry));
    if (badEgress.length > 0) {
      problems.push(`PLATFORM_EGRESS_IPS: not an IP address or CIDR block: ${badEgress.join(', ')}`);
    }
    if (this.NODE_ENV === 'production' && this.WEBHOOK_SECRET_KEY.toLowerCase() === DEV_WEBHOOK_SECRET_KEY) {
      problems.push('WEBHOOK_SECRET_KEY: the development default is refused when NODE_ENV=production');
    }
    if (this.NODE_ENV === 'production' && this.WEBHOOK_ALLOW_PRIVATE) {
      problems.push('WEBHOOK_ALLOW_PRIVATE: private webhook targets are refused when NODE_ENV=production');
    }
    if (
      this.NODE_ENV === 'production' &&
      this.BOT_TOKEN_ENCRYPTION_KEY.toLowerCase() === DEV_BOT_TOKEN_ENCRYPTION_KEY
    ) {
      problems.push('BOT_TOKEN_ENCRYPTION_KEY: the development default is refused when NODE_ENV=production');
    }
    problems.push(...fileStorageProblems(this));
    return problems;
  }
}
