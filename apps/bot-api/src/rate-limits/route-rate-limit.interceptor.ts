import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { accountOf, principalOf } from '@app/auth';
import {
  RATE_LIMIT_STORE,
  type RateLimitStore,
  rateLimitedError,
  resolveRateLimits,
  setRateLimitHeaders,
  WindowedRateLimiters,
} from '@app/rate-limits';
import type { Request, Response } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { BotConfig } from '../config/bot.config';
import { DEFAULT_ROUTE_RATE_LIMITS, RouteRateLimit } from '../config/route-rate-limits.config';
import { credentialOf } from './credential-subject';
import { RouteLimit, routeLimitOf } from './route-rate-limits';

/**
 * Counts every call of a limited route against its subject once the guards have authenticated it
 * (an interceptor, so the account or bot is known) and before validation, so malformed calls count
 * too. X-RateLimit-* go on every answer; past the limit, 429 RATE_LIMITED with Retry-After.
 */
@Injectable()
export class RouteRateLimitInterceptor implements NestInterceptor {
  private readonly limiters: WindowedRateLimiters<RouteRateLimit>;

  constructor(@Inject(RATE_LIMIT_STORE) store: RateLimitStore, config: BotConfig) {
    this.limiters = new WindowedRateLimiters({
      store,
      limits: resolveRateLimits(DEFAULT_ROUTE_RATE_LIMITS, config.RATE_LIMITS),
      keyPrefix: 'rl',
    });
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    const limit = routeLimitOf(req.method, req.path);
    const subject = limit && subjectOf(req, limit.subject);
    if (!limit || !subject) return next.handle();
    return from(this.limiters.consume(limit.endpoint, subject)).pipe(
      switchMap((outcome) => {
        setRateLimitHeaders(context.switchToHttp().getResponse<Response>(), outcome);
        if (!outcome.allowed) throw rateLimitedError(outcome);
        return next.handle();
      }),
    );
  }
}

function subjectOf(req: Request, kind: RouteLimit['subject']): string | undefined {
  if (kind === 'credential') return credentialOf(req) ?? req.ip ?? req.socket.remoteAddress;
  if (kind === 'bot') return principalOf(req)?.tenantId;
  return accountOf(req)?.id;
}
