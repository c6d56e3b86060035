/**
 * The work the specification asks of every verify and redeem besides the statements, written by hand
 * for the fair variant of the voucher baseline (`/fair/verify`, `/fair/redeem` of voucher-service.ts):
 * - a body validation that refuses unknown fields (the DTOs' fields, types and lengths);
 * - the call counted against the token's per-minute limit, with its failed look-ups read in the same
 *   round trip (the guessing protection), in the store the app uses in the mode: one script call on
 *   Redis, one `INSERT … ON CONFLICT … RETURNING` on PostgreSQL;
 * - one JSON log line per answered request through pino;
 * - one observation of the request-duration histogram (prom-client).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import pino from 'pino';
import type { Pool } from 'pg';
import { Histogram, Registry } from 'prom-client';

export class FairFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const CREDENTIAL_TYPES = new Set(['qr_token', 'redeem_code']);
const REDEEM_TEXT_FIELDS = ['external_order_id', 'store_id', 'operator_id'] as const;
const REDEEM_FIELDS = new Set(['credential', 'external_order_id', 'store_id', 'operator_id', 'occurred_at']);
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}

function onlyFields(value: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const field in value) if (!allowed.has(field)) return false;
  return true;
}

const CREDENTIAL_FIELDS = new Set(['type', 'value']);
const VERIFY_FIELDS = new Set(['credential']);

function validCredential(value: unknown): boolean {
  return (
    isObject(value) &&
    onlyFields(value, CREDENTIAL_FIELDS) &&
    CREDENTIAL_TYPES.has(value.type as string) &&
    text(value.value, 256)
  );
}

/** VerifyDto: `credential` only, unknown fields refused (400). */
export function validateVerify(body: unknown): asserts body is { credential: { type: string; value: string } } {
  if (!isObject(body) || !onlyFields(body, VERIFY_FIELDS) || !validCredential(body.credential)) {
    throw new FairFailure(400, 'VALIDATION_FAILED');
  }
}

/** RedeemDto: credential, external_order_id, the optional ids and business time; unknown fields refused (400). */
export function validateRedeem(
  body: unknown,
): asserts body is { credential: { type: string; value: string }; external_order_id: string } {
  const valid =
    isObject(body) &&
    onlyFields(body, REDEEM_FIELDS) &&
    validCredential(body.credential) &&
    REDEEM_TEXT_FIELDS.every((field) =>
      field === 'external_order_id' || body[field] !== undefined ? text(body[field], 128) : true,
    ) &&
    (body.occurred_at === undefined || (typeof body.occurred_at === 'string' && ISO_8601.test(body.occurred_at)));
  if (!valid) throw new FairFailure(400, 'VALIDATION_FAILED');
}

/** Counts one call in the endpoint's one-minute window and reads the token's failed look-ups. */
export interface FairLimiter {
  consume(endpoint: string, tokenId: string): Promise<void>;
}

/** The limit the bench gives the apps (`RATE_LIMITS=<endpoint>=1000000`) and the guessing threshold. */
const LIMIT = 1_000_000;
const GUESS_LIMIT = 10;

/** INCR of the window's counter (its expiry set when it opens) and GET of the failures, one script call. */
const COUNT_AND_PEEK = `
local n = redis.call('incr', KEYS[1])
if n == 1 then redis.call('expire', KEYS[1], ARGV[1]) end
return {n, redis.call('get', KEYS[2])}`;

type ScriptedRedis = Redis & {
  fairCount(count: string, failures: string, seconds: string): Promise<[number, string | null]>;
};

function redisLimiter(url: string, prefix: string): FairLimiter {
  const redis = new Redis(url, { keyPrefix: prefix, enableAutoPipelining: true }) as ScriptedRedis;
  redis.defineCommand('fairCount', { numberOfKeys: 2, lua: COUNT_AND_PEEK });
  return {
    async consume(endpoint, tokenId) {
      const [count, failures] = await redis.fairCount(`rl:${endpoint}:${tokenId}`, `guess:${tokenId}`, '60');
      if (count > LIMIT) throw new FairFailure(429, 'RATE_LIMITED');
      if (Number(failures ?? 0) >= GUESS_LIMIT) throw new FairFailure(429, 'RATE_LIMITED');
    },
  };
}

export const FAIR_RATE_LIMIT_TABLE = `
  CREATE TABLE IF NOT EXISTS fair_rate_limits (key text PRIMARY KEY, points integer NOT NULL, expires_at timestamptz NOT NULL);`;

function postgresLimiter(pool: Pool): FairLimiter {
  const count = {
    name: 'fair_rate_limit',
    text: `INSERT INTO fair_rate_limits AS r (key, points, expires_at) VALUES ($1, 1, now() + interval '60 seconds')
           ON CONFLICT (key) DO UPDATE SET
             points = CASE WHEN r.expires_at <= now() THEN 1 ELSE r.points + 1 END,
             expires_at = CASE WHEN r.expires_at <= now() THEN now() + interval '60 seconds' ELSE r.expires_at END
           RETURNING points, (SELECT points FROM fair_rate_limits f WHERE f.key = $2 AND f.expires_at > now()) AS failures`,
  };
  return {
    async consume(endpoint, tokenId) {
      const { rows } = await pool.query({ ...count, values: [`rl:${endpoint}:${tokenId}`, `guess:${tokenId}`] });
      if (rows[0].points > LIMIT || Number(rows[0].failures ?? 0) >= GUESS_LIMIT) {
        throw new FairFailure(429, 'RATE_LIMITED');
      }
    },
  };
}

/** The store of the mode the bench runs in (COORDINATION_BACKEND, as the apps get it). */
export function fairLimiter(env: NodeJS.ProcessEnv, pool: Pool): FairLimiter {
  if (env.COORDINATION_BACKEND === 'postgres') return postgresLimiter(pool);
  return redisLimiter(env.REDIS_URL ?? 'redis://127.0.0.1:6379', env.REDIS_KEY_PREFIX ?? '');
}

/** The request line and the duration histogram of one answered request. */
export function fairObserver() {
  const log = pino({ name: 'voucher-baseline' });
  const registry = new Registry();
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Request duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers: [registry],
  });
  return (req: IncomingMessage, res: ServerResponse, route: string, startedAt: bigint): void => {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    duration.observe({ method: req.method ?? '', route, status: String(res.statusCode) }, seconds);
    log.info(
      {
        req: {
          method: req.method,
          url: req.url,
          headers: { 'user-agent': req.headers['user-agent'], 'idempotency-key': req.headers['idempotency-key'] },
        },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(seconds * 1000),
      },
      'request completed',
    );
  };
}
