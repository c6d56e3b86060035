import { applyDecorators, SetMetadata, Type, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiResponse } from '@nestjs/swagger';
import { PermissionsGuard, RequirePermissions } from '@app/auth';
import { API_SECURITY } from '@app/platform';
import { ApiErrors } from '../voucher-errors';
import { RATE_LIMIT_KEY, RateLimitMetadata } from '../rate-limits/rate-limit.metadata';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { AppTokenGuard } from './app-token.guard';
import { ApplicationAccessGuard } from './application-access.guard';
import { RUNTIME_ROUTE_KEY, RuntimeRouteOptions } from '../applications/runtime-route.options';

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Calls allowed per one-minute window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Calls left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix seconds when the window ends', schema: { type: 'integer' } },
};

/** The success answer of a runtime route, with the rate-limit headers every runtime answer carries. */
export function RuntimeSuccess(
  status: 200 | 201,
  description: string,
  type: Type<unknown> | [Type<unknown>],
): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, headers: RATE_LIMIT_HEADERS, type });
}

/**
 * An application-token route. Guards, in order: the token (401), the rate limit (429; before any
 * idempotency claim, and setting the X-RateLimit headers for every later answer), the application's
 * state, feature and Origin policy (403), then the permission (403).
 */
export function RuntimeRoute(options: RuntimeRouteOptions): ReturnType<typeof applyDecorators> {
  const rateLimit: RateLimitMetadata = { endpoint: options.rateLimit, guessProtected: options.guessProtected ?? false };
  return applyDecorators(
    SetMetadata(RUNTIME_ROUTE_KEY, options),
    SetMetadata(RATE_LIMIT_KEY, rateLimit),
    RequirePermissions(options.permission),
    UseGuards(AppTokenGuard, RateLimitGuard, ApplicationAccessGuard, PermissionsGuard),
    ApiBearerAuth(API_SECURITY.appToken),
    ApiHeader({
      name: 'Origin',
      required: false,
      description: "Checked against the application's allowed_origins; required when they restrict",
    }),
    ApiErrors(
      ...(options.errors ?? []),
      { code: 'UNAUTHORIZED', when: 'token missing, unknown, revoked or expired; JWT or bot token sent' },
      { code: 'APPLICATION_DISABLED', when: 'the application is disabled' },
      { code: 'FEATURE_DISABLED', when: 'the vouchers feature is closed for the application' },
      { code: 'ORIGIN_NOT_ALLOWED', when: 'Origin missing or not allowed under a restriction' },
      { code: 'FORBIDDEN', when: `the token lacks ${options.permission}` },
      { code: 'RATE_LIMITED', when: 'rate limit of the endpoint exceeded (Retry-After says when to retry)' },
      { code: 'SEALED_TRANSPORT_REQUIRED', when: 'SEALED_TRANSPORT=required and the call was sent plain' },
    ),
  );
}
