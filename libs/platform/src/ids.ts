const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A textual UUID in either case. An id given in a path or body that is not one can match no row of a
 * uuid column, and PostgreSQL would refuse the cast, so callers answer "not found" before asking.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
