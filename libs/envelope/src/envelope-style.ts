import type { Request } from 'express';
import type { FieldProblem } from './api-error';
import { defaultErrorCode } from './error-catalog';
import { elapsedMs, requestContext } from './request-context';

export interface ErrorView {
  status: number;
  code: string;
  message: string;
  details?: FieldProblem[];
}

/** How one service shapes its bodies. Each service picks exactly one style at module setup. */
export interface EnvelopeStyle {
  readonly name: 'voucher' | 'bot';
  readonly requestIdHeader: string;
  defaultCode(status: number): string;
  success(req: Request, status: number, data: unknown): string;
  error(req: Request, view: ErrorView): string;
}

/** `{ success, code, message, data | error, meta }` — the voucher service's envelope (spec 2.1). */
export const voucherEnvelope: EnvelopeStyle = {
  name: 'voucher',
  requestIdHeader: 'X-Request-Id',
  defaultCode: (status) => defaultErrorCode(status, 'VALIDATION_FAILED'),
  success(req, status, data) {
    return JSON.stringify({
      success: true,
      code: status,
      message: status === 201 ? 'Created' : 'OK',
      data: data ?? null,
      meta: voucherMeta(req),
    });
  },
  error(req, view) {
    const error = view.details?.length ? { code: view.code, details: view.details } : { code: view.code };
    return JSON.stringify({ success: false, code: view.status, message: view.message, error, meta: voucherMeta(req) });
  },
};

function voucherMeta(req: Request) {
  return {
    requestId: requestContext(req).id,
    timestamp: new Date().toISOString(),
    duration: `${elapsedMs(req)}ms`,
  };
}

/** `{ success: true, data }` / `{ success: false, code, message }` — the bot service's envelope (spec 4). */
export const botEnvelope: EnvelopeStyle = {
  name: 'bot',
  requestIdHeader: 'X-Service-Request-Id',
  defaultCode: (status) => defaultErrorCode(status, 'VALIDATION'),
  success(_req, _status, data) {
    return JSON.stringify({ success: true, data: data ?? null });
  },
  error(_req, view) {
    return JSON.stringify({ success: false, code: view.code, message: view.message });
  },
};
