import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import type { Request, Response } from 'express';
import { TelegramError, TELEGRAM_TEXTS, toTelegramError } from './telegram-errors';

/** Renders every failure of the Telegram face as Telegram does: `{ ok: false, error_code, description }`. */
@Catch()
export class TelegramExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('TelegramGateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    const error =
      exception instanceof HttpException && !(exception instanceof ApiError) ? fromHttp(exception) : exception;
    const body = toTelegramError(error);
    if (body.error_code >= 500) {
      this.logger.error(
        { err: exception, route: `${req.method} ${req.route?.path ?? 'telegram'}` },
        'Telegram call failed',
      );
    }
    if (error instanceof ApiError && error.headers) res.set(error.headers);
    if (body.parameters?.retry_after !== undefined) res.set('Retry-After', String(body.parameters.retry_after));
    res.status(body.error_code).type('application/json').send(JSON.stringify(body));
  }
}

/** Framework refusals (no route, bad method) before any Telegram method ran. */
function fromHttp(exception: HttpException): TelegramError {
  const status = exception.getStatus();
  if (status === 404) return new TelegramError(404, TELEGRAM_TEXTS.notFound);
  if (status >= 500) return new TelegramError(500, 'Internal Server Error');
  return new TelegramError(status, `Bad Request: ${exception.message}`);
}
