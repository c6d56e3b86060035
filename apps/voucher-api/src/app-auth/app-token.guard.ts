import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { bearerToken, setPrincipal, tokenKindOf, wrongTokenKindMessage } from '@app/auth';
import type { Request } from 'express';
import { VoucherErrors } from '../voucher-errors';
import { setAppCaller } from '../applications/app-caller';
import { AppTokenAuthenticator } from './app-token.authenticator';

/** Accepts only application tokens (`sop_`); the call is then confined to the token's application. */
@Injectable()
export class AppTokenGuard implements CanActivate {
  constructor(private readonly authenticator: AppTokenAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req.headers.authorization);
    if (!token) throw VoucherErrors.error('UNAUTHORIZED', 'Authorization: Bearer <application token> is required');
    if (tokenKindOf(token) !== 'sop_') throw VoucherErrors.error('UNAUTHORIZED', wrongTokenKindMessage(token, 'sop_'));
    const caller = await this.authenticator.authenticate(token);
    setAppCaller(req, caller);
    setPrincipal(req, { tenantId: caller.application.id, permissions: caller.permissions });
    return true;
  }
}
