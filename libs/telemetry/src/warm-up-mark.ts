import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The header the app's own warm-up requests (libs/platform/src/warm-up.ts) carry. */
export const WARM_UP_HEADER = 'x-warm-up';

/**
 * Known to this process only, so no caller can pass for the warm-up (and skip its trace, log line or
 * limits). It lives beside tracing because tracing must recognise it before anything else of the app is
 * loaded.
 */
export const WARM_UP_MARK = randomBytes(24).toString('base64url');
const MARK_BYTES = Buffer.from(WARM_UP_MARK);

/** Whether a request is this process's own warm-up request: its header holds this process's mark. */
export function isWarmUpRequest(req: { headers: IncomingHttpHeaders }): boolean {
  const value = req.headers[WARM_UP_HEADER];
  if (typeof value !== 'string' || value.length !== WARM_UP_MARK.length) return false;
  return timingSafeEqual(Buffer.from(value), MARK_BYTES);
}
