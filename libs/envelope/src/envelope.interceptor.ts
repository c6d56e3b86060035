import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { ENVELOPE_STYLE, REQUEST_INPUT_CHECK, RequestInputCheck } from './envelope.tokens';
import type { EnvelopeStyle } from './envelope-style';
import { RenderedBody } from './rendered-response';
import { routeStatus } from './route-status';

/**
 * Wraps every successful handler result in the service's envelope, serialised once. It also runs the
 * app's request input check first: each global interceptor costs Nest an async resource and an
 * observable chain per request, so the check rides on this one instead of being an interceptor itself.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
    @Optional() @Inject(REQUEST_INPUT_CHECK) private readonly checkInput?: RequestInputCheck,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    this.checkInput?.(req);
    return next.handle().pipe(
      map((result) => {
        if (res.headersSent) return result;
        res.type('application/json');
        if (result instanceof RenderedBody) return result.body;
        return this.style.success(req, routeStatus(context), result);
      }),
    );
  }
}
