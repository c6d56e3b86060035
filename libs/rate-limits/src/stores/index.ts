export * from './insurance-limiter';
export * from './postgres-rate-limit-store';
export * from './rate-limit-store';
export * from './rate-limit-table.migration';
export * from './redis-rate-limit-store';
export { RATE_LIMIT_TABLE } from './rate-limits.store';
