import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FieldProblem } from '@app/envelope';
import type { Request } from 'express';
import { assertApplicationIssues } from '../applications/application-rules';
import { VoucherErrors } from '../voucher-errors';
import { AppCaller, appCallerOf } from '../applications/app-caller';
import { originAllowed } from './origin-policy';
import { RUNTIME_ROUTE_KEY, RuntimeRouteOptions } from '../applications/runtime-route.options';

/**
 * The application's side of a runtime call: active, vouchers feature open, Origin allowed, and no
 * request field the route does not define (NUL characters are refused globally by @app/platform). Runs after the rate limit, so these refusals carry the
 * X-RateLimit headers and count against the token like any other call.
 */
@Injectable()
export class ApplicationAccessGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const caller = appCallerOf(req);
    if (!caller) throw VoucherErrors.error('UNAUTHORIZED', 'Not authenticated');
    assertApplicationOpen(caller, typeof req.headers.origin === 'string' ? req.headers.origin : undefined);
    rejectUndeclaredInput(
      req,
      this.reflector.get<RuntimeRouteOptions | undefined>(RUNTIME_ROUTE_KEY, context.getHandler()),
    );
    return true;
  }
}

function assertApplicationOpen(caller: AppCaller, origin: string | undefined): void {
  const app = caller.application;
  assertApplicationIssues(app);
  if (!originAllowed(app.allowedOrigins, origin)) {
    throw VoucherErrors.error(
      'ORIGIN_NOT_ALLOWED',
      origin ? 'Origin is not allowed for this application' : 'Origin header is required by this application',
    );
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
    throw VoucherErrors.invalid(
      `Validation failed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
      problems,
    );
  }
}
