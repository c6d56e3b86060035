import type { VoucherErrorDoc } from '../voucher-errors';
import type { RateLimitedEndpoint } from '../config/rate-limit.policy';

/** The permissions of spec section 5.4: every runtime route needs one, and tokens are granted only these. */
export const VOUCHER_PERMISSIONS = [
  'vouchers:read',
  'vouchers:templates:write',
  'vouchers:issue',
  'vouchers:verify',
  'vouchers:redeem',
  'vouchers:reverse',
] as const;

export type VoucherPermission = (typeof VOUCHER_PERMISSIONS)[number];

export interface RuntimeRouteOptions {
  permission: VoucherPermission;
  rateLimit: RateLimitedEndpoint;
  /** Query parameters the route defines; any other is refused, so none can name another application. */
  query?: string[];
  /** Whether the route takes a body; a route without one refuses any body field. */
  body?: boolean;
  /** Verify and redeem answer 429 while the token is locked out for guessing credentials. */
  guessProtected?: boolean;
  /** Route-specific error answers for the OpenAPI document (the common ones of every runtime route are added). */
  errors?: VoucherErrorDoc[];
}

export const RUNTIME_ROUTE_KEY = 'voucher:runtime-route';
