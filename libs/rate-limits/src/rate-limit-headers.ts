import { codedError, COMMON_ERROR_CODES, type ApiError } from '@app/envelope';
import type { Response } from 'express';
import type { RateLimitOutcome } from './windowed-rate-limiters';

/** X-RateLimit-* on every answer of a limited route, errors included (decisions: rate-limit headers). */
export function setRateLimitHeaders(res: Response, outcome: RateLimitOutcome): void {
  res.setHeader('X-RateLimit-Limit', String(outcome.limit));
  res.setHeader('X-RateLimit-Remaining', String(outcome.remaining));
  res.setHeader('X-RateLimit-Reset', String(outcome.resetAt));
}

/** 429 RATE_LIMITED with Retry-After. */
export function rateLimitedError(outcome: RateLimitOutcome): ApiError {
  return codedError(
    COMMON_ERROR_CODES,
    'RATE_LIMITED',
    `Rate limit of ${outcome.limit} requests per minute exceeded for this endpoint`,
    { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
  );
}
