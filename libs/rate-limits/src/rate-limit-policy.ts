/** Every rate limit counts calls in fixed one-minute windows (decisions: "fixed one-minute windows in Redis"). */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * Applies `name=limit,…` overrides (a service's RATE_LIMITS variable) to its defaults. Throws on an
 * unknown name so a typo fails the boot instead of silently keeping a default.
 */
export function resolveRateLimits<E extends string>(
  defaults: Readonly<Record<E, number>>,
  overrides: string,
): Record<E, number> {
  const limits: Record<string, number> = { ...defaults };
  for (const pair of overrides.split(',').filter((part) => part.trim() !== '')) {
    const [name, value] = pair.split('=').map((part) => part.trim());
    if (!(name in defaults)) throw new Error(`unknown rate-limited endpoint "${name}"`);
    const limit = Number(value);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit of "${name}" must be a positive integer`);
    limits[name] = limit;
  }
  return limits as Record<E, number>;
}

/** The RATE_LIMITS format, for the config classes' `@Matches`. */
export const RATE_LIMITS_FORMAT = /^$|^[a-z_.]+=\d+(,[a-z_.]+=\d+)*$/;
