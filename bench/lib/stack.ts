import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_ROUTE_RATE_LIMITS } from '../../apps/bot-api/src/config/route-rate-limits.config';
import { DEFAULT_RATE_LIMITS } from '../../apps/voucher-api/src/config/rate-limit.policy';
import { BenchBackend, NO_REDIS_URL } from './backend';
import { BENCH_DATABASES, PG } from './db';
import { appArgs, BenchProcess, freePort, httpReady, ROOT, startProcess } from './processes';

/** Throw-away secrets made at bench start, so the apps run with real keys instead of development defaults. */
export interface Secrets {
  accountJwtSecret: string;
  credentialKey: string;
  botTokenKey: string;
  webhookSecretKey: string;
  internalApiToken: string;
  /** voucher-api's SEALED_KEYS: one P-256 key pair, so sealed calls can be measured beside plain ones. */
  sealedKeys: string;
}

export function throwAwaySecrets(): Secrets {
  return {
    accountJwtSecret: randomBytes(32).toString('base64url'),
    credentialKey: randomBytes(32).toString('hex'),
    botTokenKey: randomBytes(32).toString('hex'),
    webhookSecretKey: randomBytes(32).toString('hex'),
    internalApiToken: randomBytes(32).toString('base64url'),
    sealedKeys: JSON.stringify([
      { kid: 'bench-1', jwk: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) },
    ]),
  };
}

/** Limits far above what a run sends: quotas are raised through the services' own configuration. */
const UNLIMITED = 1_000_000;

export interface StackSettings {
  secrets: Secrets;
  backend: BenchBackend;
  /** Redis mode only: the server and the run's own key prefix. */
  redisUrl: string;
  redisKeyPrefix: string;
  /**
   * `--partitioned-delivery-tables`: bot-api's updates, deliveries and attempts are turned into the
   * tables partitioned by day that the next release is to leave, before any row is written.
   */
  partitionedDeliveryTables?: boolean;
}

/**
 * Where a process of the run keeps its queues (and the apps their limits and wake-ups): the explicit
 * choice a deployment makes, with Redis under the run's prefix (`prefixSuffix` separates the
 * baselines' keys), or nothing of Redis in the PostgreSQL-only mode.
 */
export function coordinationEnv(settings: StackSettings, prefixSuffix = ''): Record<string, string> {
  if (settings.backend === 'postgres') return { COORDINATION_BACKEND: 'postgres', REDIS_URL: NO_REDIS_URL };
  return {
    COORDINATION_BACKEND: 'redis',
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: `${settings.redisKeyPrefix}${prefixSuffix}`,
  };
}

/** Production refuses account JWTs without a named issuer and audience; the bench's tokens carry these. */
export const BENCH_ACCOUNT_JWT = { issuer: 'bench-accounts', audience: 'open-platform' };

function shared(settings: StackSettings): Record<string, string> {
  return {
    ACCOUNT_JWT_ISSUER: BENCH_ACCOUNT_JWT.issuer,
    ACCOUNT_JWT_AUDIENCE: BENCH_ACCOUNT_JWT.audience,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    DB_HOST: PG.host,
    DB_PORT: String(PG.port),
    DB_USER: PG.user,
    DB_PASSWORD: PG.password,
    DB_AUTO_CREATE: 'false',
    ...coordinationEnv(settings),
  };
}

/** voucher-api runs with NODE_ENV=production: every development default is refused, so all keys are set. */
export function voucherEnv(settings: StackSettings): Record<string, string> {
  return {
    ...shared(settings),
    NODE_ENV: 'production',
    DB_NAME: BENCH_DATABASES.voucher,
    ACCOUNT_JWT_SECRET: settings.secrets.accountJwtSecret,
    CREDENTIAL_KEY: settings.secrets.credentialKey,
    INTERNAL_API_TOKEN: settings.secrets.internalApiToken,
    // Plain and sealed runtime calls on one instance, so the sealed redeem is measured beside the plain one.
    SEALED_TRANSPORT: 'optional',
    SEALED_KEYS: settings.secrets.sealedKeys,
    RATE_LIMITS: Object.keys(DEFAULT_RATE_LIMITS)
      .map((name) => `${name}=${UNLIMITED}`)
      .join(','),
  };
}

/**
 * bot-api and bot-dispatcher refuse private webhook targets in production, and the bench's receiver
 * is on 127.0.0.1: they run with NODE_ENV=development but every key set as production would set it.
 * WEBHOOK_ALLOW_PRIVATE is the one setting that differs from a production deployment.
 */
export function botEnv(settings: StackSettings): Record<string, string> {
  return {
    ...shared(settings),
    NODE_ENV: 'development',
    DB_NAME: BENCH_DATABASES.bot,
    ACCOUNT_JWT_SECRET: settings.secrets.accountJwtSecret,
    BOT_TOKEN_ENCRYPTION_KEY: settings.secrets.botTokenKey,
    WEBHOOK_SECRET_KEY: settings.secrets.webhookSecretKey,
    INTERNAL_API_TOKEN: settings.secrets.internalApiToken,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMITS: Object.keys(DEFAULT_ROUTE_RATE_LIMITS)
      .map((name) => `${name}=${UNLIMITED}`)
      .join(','),
    BOT_DEFAULT_SEND_PER_SEC: String(UNLIMITED),
    BOT_DEFAULT_SEND_PER_MIN: String(UNLIMITED),
    BOT_DEFAULT_SEND_PER_DAY: String(UNLIMITED),
  };
}

export function dispatcherEnv(settings: StackSettings, caFile: string): Record<string, string> {
  return {
    ...shared(settings),
    NODE_ENV: 'development',
    DB_NAME: BENCH_DATABASES.bot,
    WEBHOOK_SECRET_KEY: settings.secrets.webhookSecretKey,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CA_FILE: caFile,
  };
}

/** The counting instances' own Redis namespace under the run's prefix (deleted with the run's keys). */
const PROBE_KEY_PREFIX = 'probe:';

/**
 * The statement-counting instance of an app (bench/probe.ts): its database connection goes through the
 * counting proxy at `dbPort`, and it runs no background work that would land inside a counted request.
 * bot-api's staff redrive worker claims leases once per REDRIVE_STEP_MS whether or not a job runs; on the
 * counting instance that statement would be charged to whichever request was being counted. The
 * instance that carries the load keeps the worker on, as production does.
 * In the Redis mode the instance has a key prefix of its own, as a separate deployment would: its
 * periodic-work worker takes only the jobs its own schedulers make, never the loaded instance's (whose
 * redrive tick runs every REDRIVE_STEP_MS there). In the PostgreSQL-only mode the queues live in the
 * run's database, which both instances share: there it stays a replica of the loaded instance's cluster.
 */
export function probeInstanceEnv(
  name: 'voucher-api' | 'bot-api',
  settings: StackSettings,
  dbPort: number,
): Record<string, string> {
  const base = name === 'voucher-api' ? voucherEnv(settings) : { ...botEnv(settings), REDRIVE_WORKER_ENABLED: 'false' };
  return { ...base, ...coordinationEnv(settings, PROBE_KEY_PREFIX), DB_PORT: String(dbPort), MIGRATIONS_RUN: 'false' };
}

type AppName = 'voucher-api' | 'bot-api' | 'bot-dispatcher';

/**
 * The NODE_OPTIONS the app's image runs with (`ENV NODE_OPTIONS=…` of its Dockerfile's runtime stage):
 * memory and heap flags there are production settings, so the bench measures with them too.
 * `BENCH_NODE_OPTIONS` replaces them for diagnosis (e.g. `--heapsnapshot-signal=SIGUSR2`, `--max-semi-space-size=8`).
 */
export function imageNodeOptions(name: AppName): string {
  if (process.env.BENCH_NODE_OPTIONS !== undefined) return process.env.BENCH_NODE_OPTIONS;
  const dockerfile = readFileSync(resolve(ROOT, `docker/${name}.Dockerfile`), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const match = /NODE_OPTIONS=(?:"([^"]*)"|(\S+))/.exec(runtime);
  return match ? (match[1] ?? match[2]) : '';
}

/** The OTEL_* variables every app of the run gets (`--tracing`); empty: tracing off, as by default. */
let tracingEnv: Record<string, string> = {};

/** Turns tracing on in every app started from now on: a `ratio` of traces sampled, exported to `endpoint`. */
export function traceApps(endpoint: string, ratio: number): void {
  tracingEnv = {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  };
}

export async function startApp(name: AppName, env: Record<string, string>): Promise<BenchProcess> {
  return startProcess({
    name,
    args: appArgs(name),
    env: { NODE_OPTIONS: imageNodeOptions(name), ...env, ...tracingEnv },
    port: await freePort(),
    ready: httpReady('/health/ready'),
  });
}

/** The hand-written baselines' database connection: the same server and pool size as the apps. */
export function baselineDbEnv(): Record<string, string> {
  return {
    DB_HOST: PG.host,
    DB_PORT: String(PG.port),
    DB_USER: PG.user,
    DB_PASSWORD: PG.password,
    DB_NAME: BENCH_DATABASES.baseline,
    DB_POOL_SIZE: '10',
  };
}
