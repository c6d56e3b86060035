import { sql } from 'kysely';

/**
 * The error classes an SRE filters dead letters by, derived from the last attempt: its HTTP status
 * when the receiver answered, else the dispatcher's error text (timeouts, refused connections, TLS
 * failures and addresses the address policy refused).
 */
export const DELIVERY_ERROR_CLASSES = [
  'timeout',
  'connection_refused',
  'tls',
  'http_4xx',
  'http_5xx',
  'http_410',
  'address_refused',
  'other',
] as const;
export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

/** One definition of the error class of a delivery row `d`, for filters, counts and metrics alike. */
export function errorClassSql(d: string): string {
  return `(CASE
      WHEN ${d}.last_error IS NULL AND ${d}.last_status_code IS NULL THEN NULL
      WHEN ${d}.last_status_code = 410 THEN 'http_410'
      WHEN ${d}.last_status_code BETWEEN 400 AND 499 THEN 'http_4xx'
      WHEN ${d}.last_status_code >= 500 THEN 'http_5xx'
      WHEN ${d}.last_error ~* '(no response within|timeout|timed out|ETIMEDOUT)' THEN 'timeout'
      WHEN ${d}.last_error ~* 'ECONNREFUSED|connection refused' THEN 'connection_refused'
      WHEN ${d}.last_error ~* '(not connected|allowed_ips|private or reserved|address refused)' THEN 'address_refused'
      WHEN ${d}.last_error ~* '(CERT|TLS|SSL|self.signed|certificate|EPROTO)' THEN 'tls'
      ELSE 'other' END)`;
}

/** errorClassSql as an expression of a statement builder. */
export function errorClass(d: string) {
  return sql<DeliveryErrorClass | null>`${sql.raw(errorClassSql(d))}`;
}
