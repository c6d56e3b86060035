import { registerDecorator, ValidationOptions } from 'class-validator';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_HOST_LENGTH = 253;

function isHostname(host: string): boolean {
  if (host.length === 0 || host.length > MAX_HOST_LENGTH) return false;
  return host.split('.').every((label) => LABEL.test(label));
}

/**
 * `*` (any origin), an exact host (`shop.example.com`), or a subdomain wildcard (`*.example.com`).
 * Patterns are compared with the Origin's host, so schemes, ports and paths are refused rather than
 * silently dropped; a wildcard needs at least two labels after it so that `*.com` cannot open a whole TLD.
 */
export function isHostPattern(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (value === '*') return true;
  if (value.startsWith('*.')) {
    const base = value.slice(2);
    return isHostname(base) && base.includes('.');
  }
  return isHostname(value);
}

/** Lower-cases and trims host patterns, drops duplicates; anything that is not a string list passes through to validation. */
export function normaliseHostPatterns(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const normalised = value.map((entry) => (typeof entry === 'string' ? entry.trim().toLowerCase() : entry));
  return normalised.filter((entry, index) => typeof entry !== 'string' || normalised.indexOf(entry) === index);
}

export function IsHostPattern(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isHostPattern',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message:
          'each entry must be "*", a host such as "shop.example.com", or "*.example.com" (no scheme, port or path)',
        ...options,
      },
      validator: { validate: (value: unknown) => isHostPattern(value) },
    });
}
