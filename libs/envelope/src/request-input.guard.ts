import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import { REQUEST_INPUT_CHECK, RequestInputCheck } from './envelope.tokens';

/**
 * The app's request input check as the first global guard: the router has matched the route (so the
 * path parameters are known) and nothing has read the input yet. A guard costs Nest one call per
 * request; the interceptor it once rode on cost an async resource and an observable chain.
 */
@Injectable()
export class RequestInputGuard implements CanActivate {
  constructor(@Optional() @Inject(REQUEST_INPUT_CHECK) private readonly checkInput?: RequestInputCheck) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.checkInput && context.getType() === 'http') this.checkInput(context.switchToHttp().getRequest<Request>());
    return true;
  }
}
