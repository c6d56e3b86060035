/**
 * Whether `error` is pg's unique or check violation of `constraint`: how a store tells "that row already
 * exists" or "that would overdraw" from a failure, once PostgreSQL has refused the statement.
 */
export function violates(error: unknown, constraint: string): boolean {
  const { code, constraint: violated } = (error ?? {}) as { code?: string; constraint?: string };
  return (code === '23505' || code === '23514') && violated === constraint;
}
