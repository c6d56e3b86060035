import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { from, Observable, switchMap } from 'rxjs';
import { sealedCallOf } from './sealed-call.marker';
import { SealedTransportService } from './sealed-transport.service';

/**
 * Records a sealed call's id once every guard of its route (token, rate limit, application, Origin,
 * permission) has let it through, just before idempotency and the handler: a seal refused by any of
 * them never ran and may be sent again, and one that ran never runs twice. A global interceptor, so it
 * runs after all guards and before the route's own interceptors.
 */
@Injectable()
export class SealedCallAdmission implements NestInterceptor {
  constructor(private readonly sealed: SealedTransportService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = context.getType() === 'http' ? sealedCallOf(context.switchToHttp().getRequest<Request>()) : undefined;
    if (!call) return next.handle();
    return from(this.sealed.admit(call)).pipe(switchMap(() => next.handle()));
  }
}
