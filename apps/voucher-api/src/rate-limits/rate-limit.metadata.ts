import type { RateLimitedEndpoint } from '../config/rate-limit.policy';

export interface RateLimitMetadata {
  endpoint: RateLimitedEndpoint;
  /** Also refuse the call while the token is locked out for guessing credentials. */
  guessProtected: boolean;
}

export const RATE_LIMIT_KEY = 'voucher:rate-limit';
