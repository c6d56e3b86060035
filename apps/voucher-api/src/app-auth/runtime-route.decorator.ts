import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { PermissionsGuard, RequirePermissions } from '@app/auth';
import { RATE_LIMIT_KEY, RateLimitMetadata } from '../rate-limits/rate-limit.metadata';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { AppTokenGuard } from './app-token.guard';
import { ApplicationAccessGuard } from './application-access.guard';
import { RUNTIME_ROUTE_KEY, RuntimeRouteOptions } from './runtime-route.options';

/**
 * An application-token route. Guards, in order: the token (401), the rate limit (429; before any
 * idempotency claim, and setting the X-RateLimit headers for every later answer), the application's
 * state, feature and Origin policy (403), then the permission (403).
 */
export function RuntimeRoute(options: RuntimeRouteOptions) {
  const rateLimit: RateLimitMetadata = { endpoint: options.rateLimit, guessProtected: options.guessProtected ?? false };
  return applyDecorators(
    SetMetadata(RUNTIME_ROUTE_KEY, options),
    SetMetadata(RATE_LIMIT_KEY, rateLimit),
    RequirePermissions(options.permission),
    UseGuards(AppTokenGuard, RateLimitGuard, ApplicationAccessGuard, PermissionsGuard),
    ApiBearerAuth(),
  );
}
