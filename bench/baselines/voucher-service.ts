/**
 * Baseline for redeem and verify: node:http + pg, what a lean hand-written service must do for the
 * same guarantees, with named prepared statements.
 *
 * POST /redeem runs ONE transaction of six statements between BEGIN and COMMIT:
 *   1. token lookup by SHA-256 hash (not revoked, not expired, application active)
 *   2. idempotency key claim: INSERT … ON CONFLICT DO NOTHING RETURNING (a taken key answers 409)
 *   3. voucher lookup by the QR token's lookup HMAC, scoped to the application
 *   4. conditional UPDATE … WHERE status = 'available' AND within validity RETURNING the voucher
 *   5. redemption INSERT … RETURNING
 *   6. idempotency key completion: the stored response, in the same transaction
 * POST /verify runs statements 1 and 3 (no transaction: it only reads).
 *
 * `/fair/verify` and `/fair/redeem` are the same with the work the specification requires on every
 * call besides the statements (see voucher-fair.ts): the body validated with unknown fields refused,
 * the call counted in the mode's rate-limit store, one pino log line and one histogram observation.
 */
import { createServer, IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { Pool, PoolClient } from 'pg';
import { BASELINE_LOOKUP_KEY, qrTokenHash, tokenHash } from './schema';
import { baselinePool, readBody, sendJson } from './plumbing';
import { fairLimiter, FairFailure, fairObserver, validateRedeem, validateVerify } from './voucher-fair';

const pool = baselinePool();
const limiter = fairLimiter(process.env, pool);
const observe = fairObserver();

/** What a fair route adds around the plain one: its body check and its count, by the token's id. */
interface FairChecks {
  validate(body: unknown): void;
  endpoint: string;
}

const SQL = {
  token: {
    name: 'token_by_hash',
    text: `SELECT t.id, t.application_id, t.permissions FROM app_tokens t JOIN applications a ON a.id = t.application_id
            WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
              AND a.status = 'active'`,
  },
  claim: {
    name: 'claim_key',
    text: `INSERT INTO idempotency_keys (scope, key, route, fingerprint, status, expires_at)
           VALUES ($1, $2, 'POST /redeem', $3, 'in_progress', now() + interval '1 day')
           ON CONFLICT DO NOTHING RETURNING key`,
  },
  voucher: {
    name: 'voucher_by_qr',
    text: `SELECT id, status, valid_from, valid_to FROM vouchers WHERE application_id = $1 AND qr_token_hash = $2`,
  },
  consume: {
    name: 'consume_voucher',
    text: `UPDATE vouchers SET status = 'redeemed', redeemed_at = now(), updated_at = now()
            WHERE id = $1 AND status = 'available' AND valid_from <= now() AND valid_to > now()
        RETURNING id, template_id, recipient_user_id, status, valid_from, valid_to, issued_at, redeemed_at`,
  },
  redemption: {
    name: 'insert_redemption',
    text: `INSERT INTO redemptions (application_id, voucher_id, external_order_id, occurred_at)
           VALUES ($1, $2, $3, now()) RETURNING id, occurred_at, created_at`,
  },
  complete: {
    name: 'complete_key',
    text: `UPDATE idempotency_keys SET status = 'completed', response_status = 201, response_body = $3
            WHERE scope = $1 AND key = $2`,
  },
};

class Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

async function caller(db: Pool | PoolClient, req: IncomingMessage, permission: string) {
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const { rows } = await db.query({ ...SQL.token, values: [tokenHash(token)] });
  if (rows.length === 0) throw new Failure(401, 'UNAUTHORIZED');
  if (!(rows[0].permissions as string[]).includes(permission)) throw new Failure(403, 'FORBIDDEN');
  return rows[0] as { id: string; application_id: string };
}

async function redeem(req: IncomingMessage, raw: Buffer, fair?: FairChecks): Promise<unknown> {
  const body = JSON.parse(raw.toString('utf8'));
  fair?.validate(body);
  const key = String(req.headers['idempotency-key'] ?? '');
  if (!key || body?.credential?.type !== 'qr_token') throw new Failure(400, 'VALIDATION_ERROR');
  const db = await pool.connect();
  try {
    await db.query('BEGIN');
    try {
      const token = await caller(db, req, 'vouchers:redeem');
      if (fair) await limiter.consume(fair.endpoint, token.id);
      const fingerprint = createHash('sha256').update(raw).digest('hex');
      const claimed = await db.query({ ...SQL.claim, values: [token.application_id, key, fingerprint] });
      if (claimed.rowCount === 0) throw new Failure(409, 'IDEMPOTENCY_KEY_IN_USE');
      const found = await db.query({
        ...SQL.voucher,
        values: [token.application_id, qrTokenHash(BASELINE_LOOKUP_KEY, body.credential.value)],
      });
      if (found.rowCount === 0) throw new Failure(404, 'NOT_FOUND');
      const consumed = await db.query({ ...SQL.consume, values: [found.rows[0].id] });
      if (consumed.rowCount === 0) throw new Failure(409, 'VOUCHER_NOT_REDEEMABLE');
      const redemption = await db.query({
        ...SQL.redemption,
        values: [token.application_id, found.rows[0].id, String(body.external_order_id)],
      });
      const result = {
        success: true,
        code: 201,
        message: 'ok',
        data: { ...redemption.rows[0], voucher: consumed.rows[0] },
      };
      await db.query({ ...SQL.complete, values: [token.application_id, key, JSON.stringify(result)] });
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
  } finally {
    db.release();
  }
}

async function verify(req: IncomingMessage, raw: Buffer, fair?: FairChecks): Promise<unknown> {
  const body = JSON.parse(raw.toString('utf8'));
  fair?.validate(body);
  if (body?.credential?.type !== 'qr_token') throw new Failure(400, 'VALIDATION_ERROR');
  const token = await caller(pool, req, 'vouchers:verify');
  if (fair) await limiter.consume(fair.endpoint, token.id);
  const found = await pool.query({
    ...SQL.voucher,
    values: [token.application_id, qrTokenHash(BASELINE_LOOKUP_KEY, body.credential.value)],
  });
  if (found.rowCount === 0) throw new Failure(404, 'NOT_FOUND');
  const voucher = found.rows[0];
  const now = Date.now();
  const redeemable = voucher.status === 'available' && voucher.valid_from <= now && voucher.valid_to > now;
  return { success: true, code: 200, message: 'ok', data: { voucher, redeemable } };
}

interface Route {
  status: number;
  handle: (req: IncomingMessage, raw: Buffer) => Promise<unknown>;
  /** The fair routes log a line and observe the histogram once answered. */
  fair?: boolean;
}

const routes: Record<string, Route> = {
  'POST /redeem': { status: 201, handle: redeem },
  'POST /verify': { status: 200, handle: verify },
  'POST /fair/redeem': {
    status: 201,
    handle: (req, raw) => redeem(req, raw, { validate: validateRedeem, endpoint: 'redeem' }),
    fair: true,
  },
  'POST /fair/verify': {
    status: 200,
    handle: (req, raw) => verify(req, raw, { validate: validateVerify, endpoint: 'verify' }),
    fair: true,
  },
};

createServer((req, res) => {
  if (req.url === '/ready') return sendJson(res, 200, { ready: true });
  const key = `${req.method} ${req.url}`;
  const route = routes[key];
  if (!route) return sendJson(res, 404, { success: false, code: 'NOT_FOUND' });
  const startedAt = process.hrtime.bigint();
  if (route.fair) res.once('finish', () => observe(req, res, key, startedAt));
  readBody(req)
    .then((raw) => route.handle(req, raw))
    .then((result) => sendJson(res, route.status, result))
    .catch((error: Error) => {
      const known = error instanceof Failure || error instanceof FairFailure;
      sendJson(res, known ? error.status : 500, {
        success: false,
        code: known ? error.code : 'INTERNAL',
        message: error.message,
      });
    });
}).listen(Number(process.env.PORT), '127.0.0.1');
