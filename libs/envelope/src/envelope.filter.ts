import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { databaseUnavailable } from './database-unavailable';
import { ENVELOPE_STYLE, ERROR_CATALOG } from './envelope.tokens';
import type { ErrorCatalog } from './error-catalog';
import type { EnvelopeStyle } from './envelope-style';
import { toErrorView } from './error-view';
import { RenderedErrorResponse } from './rendered-response';
import { requestContext } from './request-context';

/** Renders every failure — thrown by guards, pipes, middleware, handlers or the router — in the envelope. */
@Catch()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
    @Inject(ERROR_CATALOG) private readonly errors: ErrorCatalog | null,
  ) {}

  catch(thrown: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw thrown;
    const exception = databaseUnavailable(thrown) ?? thrown;
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;

    if (exception instanceof RenderedErrorResponse) {
      res.set(exception.headers).status(exception.status).type('application/json').send(exception.body);
      return;
    }
    const view = toErrorView(exception, this.style, req.headers['idempotency-key'] !== undefined);
    if (this.errors && !this.errors.has(view.code)) {
      // The registry is what the API documents promise; an answer outside it is a defect to fix, not to hide.
      this.logger.error(
        { code: view.code, route: `${req.method} ${req.path}` },
        'error code missing from the registry',
      );
    }
    if (view.status >= 500) {
      this.logger.error(
        { err: thrown, requestId: requestContext(req).id, route: `${req.method} ${req.path}` },
        'request failed',
      );
    }
    if (exception instanceof ApiError && exception.headers) res.set(exception.headers);
    res.status(view.status).type('application/json').send(this.style.error(req, view));
  }
}
