export * from './idempotency.errors';
export * from './idempotency.interceptor';
export * from './idempotency.migration';
export * from './idempotency.module';
export * from './idempotency.options';
export * from './idempotency.store';
export * from './idempotent-call';
export type { IdempotencyTarget } from './idempotency-target';
export { requestFingerprint } from './idempotency-decisions';
