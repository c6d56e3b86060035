import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { bearerToken, setPrincipal, tokenKindOf } from '@app/auth';
import { ApiError, FieldProblem } from '@app/envelope';
import type { Request } from 'express';
import { setAppCaller } from './app-caller';
import { AppTokenAuthenticator } from './app-token.authenticator';
import { RUNTIME_ROUTE_KEY, RuntimeRouteOptions } from './runtime-route.options';

/** Accepts only application tokens (`sop_`); the call is then confined to the token's application. */
@Injectable()
export class AppTokenGuard implements CanActivate {
  constructor(
    private readonly authenticator: AppTokenAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ApiError(401, undefined, 'Authorization: Bearer <application token> is required');
    if (tokenKindOf(token) !== 'sop_') {
      throw new ApiError(
        401,
        undefined,
        'This route takes an application token (sop_…); account JWTs and bot tokens are not accepted',
      );
    }
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const caller = await this.authenticator.authenticate(token, origin);
    const options = this.reflector.get<RuntimeRouteOptions | undefined>(RUNTIME_ROUTE_KEY, context.getHandler());
    rejectUndeclaredInput(req, options);
    setAppCaller(req, caller);
    setPrincipal(req, { tenantId: caller.application.id, permissions: caller.permissions });
    return true;
  }
}

/** Body DTOs refuse unknown fields themselves; this covers query strings and routes without a body. */
function rejectUndeclaredInput(req: Request, options: RuntimeRouteOptions | undefined): void {
  const allowedQuery = new Set(options?.query ?? []);
  const problems: FieldProblem[] = Object.keys(req.query ?? {})
    .filter((name) => !allowedQuery.has(name))
    .map((name) => ({ field: name, problem: 'is not a known query parameter' }));
  if (!options?.body && req.body !== undefined && req.body !== null) {
    const fields = typeof req.body === 'object' ? Object.keys(req.body as object) : ['body'];
    problems.push(...fields.map((field) => ({ field, problem: 'is not a known field' })));
  }
  if (problems.length > 0) {
    throw ApiError.badRequest(
      `Validation failed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
      problems,
    );
  }
}
