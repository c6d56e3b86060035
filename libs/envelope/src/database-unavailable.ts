import { ApiError } from './api-error';

/** Connection-level failures of PostgreSQL or of the pool in front of it (SQLSTATE class 08, shutdowns, refusals). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established/;

/**
 * A request that failed because the database could not be reached is not a defect of the request or
 * of the service: it answers 503 SERVICE_UNAVAILABLE with Retry-After, which clients and load balancers
 * retry, instead of a 500. Anything else is left as it is.
 */
export function databaseUnavailable(exception: unknown): ApiError | undefined {
  // Read by shape, not `instanceof Error`: socket errors come from Node's own realm.
  if (typeof exception !== 'object' || exception === null) return undefined;
  const { code, message, driverError } = exception as {
    code?: unknown;
    message?: unknown;
    driverError?: { code?: unknown; message?: unknown };
  };
  const sqlState = String(driverError?.code ?? code ?? '');
  const text = `${String(message ?? '')} ${String(driverError?.message ?? '')}`;
  if (!UNAVAILABLE_CODES.has(sqlState) && !sqlState.startsWith('08') && !UNAVAILABLE_MESSAGES.test(text)) {
    return undefined;
  }
  return new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service cannot reach its database; retry shortly', undefined, {
    'Retry-After': '1',
  });
}
