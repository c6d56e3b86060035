import { HttpException } from '@nestjs/common';
import { ApiError } from './api-error';
import type { EnvelopeStyle, ErrorView } from './envelope-style';

const GENERIC_5XX = 'Internal server error; retry later';
const GENERIC_5XX_IDEMPOTENT = 'Internal server error; retry with the same Idempotency-Key and body';

/**
 * Turns anything thrown into the public view of the error; never leaks internals of a 5xx. Only a
 * caller that sent an Idempotency-Key is told to retry with it.
 */
export function toErrorView(exception: unknown, style: EnvelopeStyle, sentIdempotencyKey = false): ErrorView {
  const GENERIC = sentIdempotencyKey ? GENERIC_5XX_IDEMPOTENT : GENERIC_5XX;
  if (exception instanceof ApiError) {
    const message = exception.status >= 500 ? GENERIC : exception.message;
    return {
      status: exception.status,
      code: exception.code ?? style.defaultCode(exception.status),
      message,
      details: exception.details,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return { status, code: style.defaultCode(status), message: status >= 500 ? GENERIC : httpMessage(exception) };
  }
  return { status: 500, code: style.defaultCode(500), message: GENERIC };
}

function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
