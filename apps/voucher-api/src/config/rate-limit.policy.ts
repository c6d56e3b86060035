import { resolveRateLimits as resolveOverrides } from '@app/rate-limits';

/**
 * Runtime endpoints that are rate limited, each with its own per-token counter, the console's
 * recipient search, counted per account, and sealed calls, counted per client address before the seal
 * is opened (its token is inside).
 */
export const DEFAULT_RATE_LIMITS = {
  me: 60,
  'templates.list': 60,
  'templates.read': 60,
  'templates.create': 20,
  'templates.update': 20,
  'templates.submit': 10,
  'templates.lifecycle': 10,
  issue: 30,
  'vouchers.revoke': 30,
  verify: 30,
  redeem: 20,
  'redemptions.read': 60,
  reverse: 10,
  'recipients.search': 30,
  sealed: 1200,
} as const;

export type RateLimitedEndpoint = keyof typeof DEFAULT_RATE_LIMITS;

/**
 * Applies `name=limit,…` overrides (the RATE_LIMITS variable) to the defaults.
 * Throws on an unknown name so a typo fails the boot instead of silently keeping a default.
 */
export function resolveRateLimits(overrides: string): Record<RateLimitedEndpoint, number> {
  return resolveOverrides(DEFAULT_RATE_LIMITS, overrides);
}
