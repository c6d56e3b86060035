import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { codedError, COMMON_ERROR_CODES } from '@app/envelope';
import type { Request } from 'express';
import { bearerToken, constantTimeEqual } from './secret-tokens';

/** Development default shared by every service of a local `npm start`; refused when NODE_ENV=production. */
export const DEV_INTERNAL_API_TOKEN = 'dev-internal-api-token-change-me';

/** A shared secret that one leaked log line or a short guess could reveal must not open internal routes. */
const MIN_PRODUCTION_TOKEN_BYTES = 32;

/** Injection token of the configured internal API token (the plaintext shared secret). */
export const INTERNAL_API_TOKEN = Symbol('INTERNAL_API_TOKEN');

/** Start-up problems of an INTERNAL_API_TOKEN value, for a service config's `extraProblems()`. */
export function internalApiTokenProblems(token: string, nodeEnv: string): string[] {
  if (nodeEnv !== 'production') return [];
  if (token === DEV_INTERNAL_API_TOKEN) {
    return ['INTERNAL_API_TOKEN: the development default is refused when NODE_ENV=production'];
  }
  if (Buffer.byteLength(token) < MIN_PRODUCTION_TOKEN_BYTES) {
    return [`INTERNAL_API_TOKEN: at least ${MIN_PRODUCTION_TOKEN_BYTES} bytes when NODE_ENV=production`];
  }
  return [];
}

/**
 * Service-to-service routes: the caller is another platform service presenting the shared
 * INTERNAL_API_TOKEN as a bearer credential. Compared in constant time (both sides hashed first, so
 * neither the length nor the first differing byte leaks); account JWTs and application or bot tokens
 * never pass, and the presented value is never logged or echoed.
 */
@Injectable()
export class InternalServiceGuard implements CanActivate {
  constructor(@Inject(INTERNAL_API_TOKEN) private readonly expected: string) {}

  canActivate(context: ExecutionContext): boolean {
    const presented = bearerToken(context.switchToHttp().getRequest<Request>().headers.authorization);
    if (presented === undefined || !constantTimeEqual(presented, this.expected)) {
      throw codedError(COMMON_ERROR_CODES, 'UNAUTHORIZED', 'This route takes the platform internal service token');
    }
    return true;
  }
}
