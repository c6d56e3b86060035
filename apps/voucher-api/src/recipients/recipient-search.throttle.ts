import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { accountOf } from '@app/auth';
import { setRateLimitHeaders } from '@app/rate-limits';
import type { Request, Response } from 'express';
import { RateLimiters } from '../rate-limits/rate-limiters';
import { VoucherErrors } from '../voucher-errors';

/**
 * Per account, after the account guard: a search matches name substrings across every user the
 * service knows, so without a limit one account could walk the whole directory.
 */
@Injectable()
export class RecipientSearchThrottle implements CanActivate {
  constructor(private readonly limiters: RateLimiters) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const account = accountOf(context.switchToHttp().getRequest<Request>());
    if (!account) return true;
    const outcome = await this.limiters.consume('recipients.search', account.id);
    setRateLimitHeaders(context.switchToHttp().getResponse<Response>(), outcome);
    if (!outcome.allowed) {
      throw VoucherErrors.error(
        'RATE_LIMITED',
        `Rate limit of ${outcome.limit} recipient searches per minute exceeded`,
        { headers: { 'Retry-After': String(outcome.retryAfterSeconds) } },
      );
    }
    return true;
  }
}
