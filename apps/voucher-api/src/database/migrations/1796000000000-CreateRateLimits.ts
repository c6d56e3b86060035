import { rateLimitTableMigration } from '@app/rate-limits';

/** The counters of the PostgreSQL-only mode's rate limits and the code-guessing lock-out (rate-limiter-flexible's table). */
export const CreateRateLimits1796000000000 = rateLimitTableMigration('CreateRateLimits1796000000000');
