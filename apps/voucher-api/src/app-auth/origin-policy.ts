/** The host of an Origin header value (`https://shop.example.com:8443` → `shop.example.com`), or undefined. */
export function originHost(origin: string | undefined): string | undefined {
  if (!origin || origin === 'null') return undefined;
  try {
    const host = new URL(origin).hostname.toLowerCase();
    return host.replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}

function hostMatches(pattern: string, host: string): boolean {
  const normalized = pattern.trim().toLowerCase();
  if (normalized.startsWith('*.')) {
    // Any depth of subdomain, but never the bare domain itself.
    return host.endsWith(normalized.slice(1)) && host.length > normalized.length - 1;
  }
  return host === normalized;
}

/**
 * The application's Origin policy: `*` allows every caller (with or without Origin); otherwise the
 * Origin's host must match one pattern, and a call without a usable Origin is refused.
 */
export function originAllowed(patterns: readonly string[], origin: string | undefined): boolean {
  if (patterns.some((pattern) => pattern.trim() === '*')) return true;
  const host = originHost(origin);
  if (!host) return false;
  return patterns.some((pattern) => hostMatches(pattern, host));
}
