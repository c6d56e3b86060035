export * from './idempotency.errors';
export * from './idempotency.interceptor';
export * from './idempotency.migration';
export * from './idempotency.module';
export * from './idempotency.options';
export * from './idempotency.store';
export * from './idempotent-call';
export { claimCtes } from './transactional-claim';
export type { IdempotencyTarget } from './transactional-claim';
