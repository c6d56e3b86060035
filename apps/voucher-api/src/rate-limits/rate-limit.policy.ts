/** Runtime endpoints that are rate limited, each with its own per-token counter. */
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
} as const;

export type RateLimitedEndpoint = keyof typeof DEFAULT_RATE_LIMITS;

export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * Applies `name=limit,…` overrides (the RATE_LIMITS variable) to the defaults.
 * Throws on an unknown name so a typo fails the boot instead of silently keeping a default.
 */
export function resolveRateLimits(overrides: string): Record<RateLimitedEndpoint, number> {
  const limits: Record<string, number> = { ...DEFAULT_RATE_LIMITS };
  for (const pair of overrides.split(',').filter((part) => part.trim() !== '')) {
    const [name, value] = pair.split('=').map((part) => part.trim());
    if (!(name in DEFAULT_RATE_LIMITS)) throw new Error(`unknown rate-limited endpoint "${name}"`);
    const limit = Number(value);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit of "${name}" must be a positive integer`);
    limits[name] = limit;
  }
  return limits as Record<RateLimitedEndpoint, number>;
}
