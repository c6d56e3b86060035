import {
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Inject,
  Injectable,
  Optional,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { codedError, COMMON_ERROR_CODES } from '@app/envelope';
import type { Request } from 'express';
import { Account, AccountJwtVerifier, InvalidAccountToken } from './account-jwt';
import { accountOf, principalOf, setAccount } from './principal';
import { bearerToken, tokenKindOf, wrongTokenKindMessage } from './secret-tokens';

/** The library's refusals are common codes, so they sit in every service's registry without being listed there. */
const unauthorized = (message: string) => codedError(COMMON_ERROR_CODES, 'UNAUTHORIZED', message);
const forbidden = (message: string) => codedError(COMMON_ERROR_CODES, 'FORBIDDEN', message);

export const ACCOUNT_DIRECTORY = Symbol('ACCOUNT_DIRECTORY');

/** The service's user directory: every authenticated call records the caller's id and name. */
export interface AccountDirectory {
  upsert(account: Account): Promise<void>;
}

/** Accepts only an account JWT; application and bot tokens are refused here (they are separate kinds). */
@Injectable()
export class AccountGuard implements CanActivate {
  constructor(
    private readonly verifier: AccountJwtVerifier,
    @Optional() @Inject(ACCOUNT_DIRECTORY) private readonly directory?: AccountDirectory,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req.headers.authorization);
    if (!token) throw unauthorized('Authorization: Bearer <account JWT> is required');
    if (tokenKindOf(token) !== 'jwt') throw unauthorized(wrongTokenKindMessage(token, 'jwt'));
    let account: Account;
    try {
      account = await this.verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidAccountToken) throw unauthorized(`Account token rejected: ${error.message}`);
      throw error;
    }
    await this.directory?.upsert(account);
    setAccount(req, account);
    return true;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a browser says the request comes from another site: Fetch Metadata (`Sec-Fetch-Site`) when
 * it sends it, else an `Origin` whose host is not the one the request was sent to (`null` included).
 * Calls that are not from a browser (curl, services) carry neither and are not cross-site.
 */
export function isCrossSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  if (site === 'same-origin' || site === 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.host;
  } catch {
    return true;
  }
}

/**
 * Platform staff only (`platform_admin` role); use after AccountGuard. A state-changing staff call from
 * another site is refused as well: behind a proxy that turns a cookie into `Authorization`, a form on
 * any page could otherwise drive a staff action with the signed-in operator's credential.
 */
@Injectable()
export class PlatformAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const account = accountOf(req);
    if (!account?.isPlatformAdmin) throw forbidden('Platform staff only');
    if (!SAFE_METHODS.has(req.method) && isCrossSite(req)) {
      throw forbidden('Staff actions are refused from another site (Origin or Sec-Fetch-Site)');
    }
    return true;
  }
}

// Stryker disable next-line StringLiteral: the key is only an identity, set and read through this constant
const PERMISSIONS_KEY = 'auth:required-permissions';

/** Every listed permission must be granted to the calling token (checked by PermissionsGuard). */
export const RequirePermissions = (...permissions: string[]) => SetMetadata(PERMISSIONS_KEY, permissions);

/** Runs after the service's token guard, which sets the principal and its permissions. */
@Injectable()
export class PermissionsGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required =
      this.reflector.getAllAndOverride<string[] | undefined>(PERMISSIONS_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [];
    if (required.length === 0) return true;
    const principal = principalOf(context.switchToHttp().getRequest<Request>());
    if (!principal) throw unauthorized('Not authenticated');
    const missing = required.filter((permission) => !principal.permissions.includes(permission));
    if (missing.length > 0) {
      throw forbidden(`Token lacks permission: ${missing.join(', ')}`);
    }
    return true;
  }
}

export const CurrentAccount = createParamDecorator((_data: unknown, context: ExecutionContext): Account => {
  const account = accountOf(context.switchToHttp().getRequest<Request>());
  if (!account) throw unauthorized('Not authenticated');
  return account;
});
