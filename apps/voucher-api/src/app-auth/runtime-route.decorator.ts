import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { PermissionsGuard, RequirePermissions } from '@app/auth';
import { RATE_LIMIT_KEY, RateLimitMetadata } from '../rate-limits/rate-limit.metadata';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { AppTokenGuard } from './app-token.guard';
import { RUNTIME_ROUTE_KEY, RuntimeRouteOptions } from './runtime-route.options';

/**
 * An application-token route: token, application state and Origin (AppTokenGuard), then the rate
 * limit (so a 429 happens before any idempotency claim), then the permission.
 */
export function RuntimeRoute(options: RuntimeRouteOptions) {
  const rateLimit: RateLimitMetadata = { endpoint: options.rateLimit, guessProtected: options.guessProtected ?? false };
  return applyDecorators(
    SetMetadata(RUNTIME_ROUTE_KEY, options),
    SetMetadata(RATE_LIMIT_KEY, rateLimit),
    RequirePermissions(options.permission),
    UseGuards(AppTokenGuard, RateLimitGuard, PermissionsGuard),
    ApiBearerAuth(),
  );
}
