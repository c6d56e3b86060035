import { rateLimitTableMigration } from '@app/rate-limits';

/** The counters of the PostgreSQL-only mode's rate limits and send quotas (rate-limiter-flexible's table). */
export const CreateRateLimits1796000000001 = rateLimitTableMigration('CreateRateLimits1796000000001');
