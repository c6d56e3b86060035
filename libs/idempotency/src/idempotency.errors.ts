import type { ErrorCodeDefinition } from '@app/envelope';

/** The codes this library answers; every service that uses it includes them in its error registry. */
export const IDEMPOTENCY_ERROR_CODES = {
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'This Idempotency-Key was already used with a different request' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still being processed' },
} as const satisfies Record<string, ErrorCodeDefinition>;
