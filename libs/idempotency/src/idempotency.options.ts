export interface IdempotencyOptions {
  /** How long a key and its stored response live (default 24 h). */
  ttlMs: number;
  /** An in-progress claim older than this may be taken over (default 60 s). */
  lockTimeoutMs: number;
  /** How often expired records are purged; 0 disables the timer (default 1 h). */
  purgeIntervalMs: number;
}

export const IDEMPOTENCY_OPTIONS = Symbol('IDEMPOTENCY_OPTIONS');

export const DEFAULT_IDEMPOTENCY_OPTIONS: IdempotencyOptions = {
  ttlMs: 24 * 60 * 60 * 1000,
  lockTimeoutMs: 60_000,
  purgeIntervalMs: 60 * 60 * 1000,
};
