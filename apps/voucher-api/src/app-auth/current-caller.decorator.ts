import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { VoucherErrors } from '../voucher-errors';
import { AppCaller, appCallerOf } from '../applications/app-caller';

/** The application token's caller, set by AppTokenGuard. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): AppCaller => {
  const caller = appCallerOf(context.switchToHttp().getRequest<Request>());
  if (!caller) throw VoucherErrors.error('UNAUTHORIZED', 'Not authenticated');
  return caller;
});
