import { EnvBoolean, EnvIntList, ServiceConfig } from '@app/platform';
import { DEV_WEBHOOK_SECRET_KEY, MAX_DELIVERY_ATTEMPTS } from '@app/bot-delivery';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { accessSync, constants } from 'node:fs';

/**
 * Environment of bot-dispatcher. It works on the bot database that bot-api migrates, so it neither
 * creates that database nor runs migrations by default.
 */
export class DispatcherConfig extends ServiceConfig {
  override PORT = 3003;
  override DB_NAME = 'bot';
  override MIGRATIONS_RUN = false;

  @IsOptional()
  @EnvBoolean()
  override DB_AUTO_CREATE?: boolean = false;

  /** A worker finishes its in-flight POST on shutdown, which may take up to WEBHOOK_TIMEOUT_MS. */
  override SHUTDOWN_TIMEOUT_MS = 20000;

  /** The AES-256-GCM key bot-api seals secret tokens with (64 hex characters); the same value in both apps. */
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'WEBHOOK_SECRET_KEY must be 64 hexadecimal characters' })
  WEBHOOK_SECRET_KEY = DEV_WEBHOOK_SECRET_KEY;

  /** Lets deliveries connect to private, loopback or link-local addresses: development and tests only. */
  @EnvBoolean()
  WEBHOOK_ALLOW_PRIVATE = false;

  /** PEM file of an extra trusted CA (test receivers with their own certificate); empty for none. */
  @IsString()
  WEBHOOK_CA_FILE = '';

  /** A receiver must answer 2xx within this time (spec: 15 s). */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  @Max(120000)
  WEBHOOK_TIMEOUT_MS = 15000;

  /** How long one DNS query of a webhook host may take (c-ares, two tries) before the host counts as unresolved. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  WEBHOOK_DNS_TIMEOUT_MS = 3000;

  /** Delay before each retry: four values, one per retry of the five attempts (spec 3.4). */
  @EnvIntList()
  DELIVERY_RETRY_DELAYS_MS: number[] = [60000, 300000, 900000, 3600000];

  /** How often the sweeper looks for due deliveries whose job never reached Redis or was lost. */
  @Type(() => Number)
  @IsInt()
  @Min(50)
  DELIVERY_SWEEP_INTERVAL_MS = 30000;

  /** A delivery this long past its due time without a result is considered lost and enqueued again. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  DELIVERY_SWEEP_GRACE_MS = 60000;

  /** The longest delay a receiver's Retry-After (429, 503) can add; a later time is cut to this. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  WEBHOOK_RETRY_AFTER_MAX_MS = 3_600_000;

  /** This many consecutive 410 Gone answers pause a bot's deliveries until its webhook is set again. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_GONE_PAUSE_AFTER = 3;

  /** Succeeded deliveries and dead letters (with their attempts) are kept this long for the console, then purged. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  DELIVERY_LOG_RETENTION_DAYS = 30;

  /** Deliveries one replica runs at once (each bot is further limited to its max_connections and fair share). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_WORKER_CONCURRENCY = 50;

  /**
   * The percentage of WEBHOOK_WORKER_CONCURRENCY one bot may hold on a replica (at least one slot): a bot
   * whose receiver never answers then holds only that share for the timeout, the rest serve other bots.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_BOT_SHARE_PERCENT = 10;

  /** How many bots, those with the largest backlog, /metrics lists with their open deliveries. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1000)
  METRICS_BACKLOG_BOTS = 20;

  /**
   * A running job's lock in Redis, renewed while it runs: the jobs of a replica that died (kill -9, OOM)
   * are taken over by another within about twice this. BullMQ's default.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  WEBHOOK_JOB_LOCK_MS = 30_000;

  /** Most attempts recorded by one statement; outcomes that finish together are written together. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_RECORD_BATCH_MAX = 200;

  /** How long an outcome waits for others to share its statement when none is being written. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(100)
  WEBHOOK_RECORD_BATCH_WINDOW_MS = 2;

  /** Bots whose keep-alive connections one replica keeps open; the least recently used beyond it are closed. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100000)
  WEBHOOK_MAX_AGENTS = 1000;

  override extraProblems(): string[] {
    const problems = super.extraProblems();
    if (this.DELIVERY_RETRY_DELAYS_MS.length !== MAX_DELIVERY_ATTEMPTS - 1) {
      problems.push(`DELIVERY_RETRY_DELAYS_MS: exactly ${MAX_DELIVERY_ATTEMPTS - 1} delays are needed (5 attempts)`);
    }
    if (this.WEBHOOK_CA_FILE !== '') {
      try {
        accessSync(this.WEBHOOK_CA_FILE, constants.R_OK);
      } catch {
        problems.push('WEBHOOK_CA_FILE: the file cannot be read');
      }
    }
    if (this.NODE_ENV === 'production' && this.WEBHOOK_SECRET_KEY.toLowerCase() === DEV_WEBHOOK_SECRET_KEY) {
      problems.push('WEBHOOK_SECRET_KEY: the development default is refused when NODE_ENV=production');
    }
    if (this.NODE_ENV === 'production' && this.WEBHOOK_ALLOW_PRIVATE) {
      problems.push('WEBHOOK_ALLOW_PRIVATE: private webhook targets are refused when NODE_ENV=production');
    }
    return problems;
  }
}
