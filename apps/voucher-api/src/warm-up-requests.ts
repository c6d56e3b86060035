import { randomUUID } from 'node:crypto';
import { generateSecretToken } from '@app/auth';
import type { WarmUpPlan } from '@app/platform';

const RUNTIME = '/api/v1/open-platform/vouchers';

/**
 * verify and redeem, the hot routes, as an integration sends them but with an application token
 * drawn at random: it names no application, so each request runs the token guard and its look-up,
 * the envelope and logging, answers 401 and changes nothing (no rate-limit window, no idempotency
 * key, no last-use write: all belong to a known token).
 */
export function voucherWarmUp(): WarmUpPlan {
  const headers = { authorization: `Bearer ${generateSecretToken('sop_')}` };
  const credential = { type: 'redeem_code', value: 'WARMUP-0000-0000' };
  return {
    requests: [
      { method: 'POST', path: `${RUNTIME}/verify`, headers, body: { credential } },
      {
        method: 'POST',
        path: `${RUNTIME}/redeem`,
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: { credential, external_order_id: 'warm-up' },
      },
    ],
  };
}
