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

/** Platform staff only (`platform_admin` role); use after AccountGuard. */
@Injectable()
export class PlatformAdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const account = accountOf(context.switchToHttp().getRequest<Request>());
    if (!account?.isPlatformAdmin) throw forbidden('Platform staff only');
    return true;
  }
}

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
