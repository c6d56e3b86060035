import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { setRateLimitHeaders } from '@app/rate-limits';
import type { Request, Response } from 'express';
import { appCallerOf } from '../applications/app-caller';
import { GuessingLimiter } from './guessing-limiter';
import { RATE_LIMIT_KEY, RateLimitMetadata } from './rate-limit.metadata';
import { RateLimiters } from './rate-limiters';
import { VoucherErrors } from '../voucher-errors';

/**
 * Runs after the token guard and before any interceptor, so a refused call never claims an
 * idempotency key and a 429 is never stored. The headers go on every answer, errors included.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiters: RateLimiters,
    private readonly guessing: GuessingLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const metadata = this.reflector.get<RateLimitMetadata | undefined>(RATE_LIMIT_KEY, context.getHandler());
    const req = context.switchToHttp().getRequest<Request>();
    const caller = appCallerOf(req);
    if (!metadata || !caller) return true;
    const res = context.switchToHttp().getResponse<Response>();
    // A guess-protected call counts its request and reads its failures together.
    const [outcome, lockout] = metadata.guessProtected
      ? await this.guessing.consumeChecking(this.limiters.limiters, metadata.endpoint, caller.tokenId)
      : [await this.limiters.consume(metadata.endpoint, caller.tokenId), undefined];
    setRateLimitHeaders(res, outcome);
    if (!outcome.allowed) {
      throw VoucherErrors.error(
        'RATE_LIMITED',
        `Rate limit of ${outcome.limit} requests per minute exceeded for this endpoint`,
        { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
      );
    }
    if (lockout) throw lockout;
    return true;
  }
}
