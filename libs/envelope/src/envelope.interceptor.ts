import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, Observable } from 'rxjs';
import { ENVELOPE_STYLE } from './envelope.tokens';
import type { EnvelopeStyle } from './envelope-style';
import { RenderedBody } from './rendered-response';
import { routeStatus } from './route-status';

/** Wraps every successful handler result in the service's envelope, serialised once. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(@Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
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
