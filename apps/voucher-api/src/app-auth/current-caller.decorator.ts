import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';
import { AppCaller, appCallerOf } from './app-caller';

/** The application token's caller, set by AppTokenGuard. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): AppCaller => {
  const caller = appCallerOf(context.switchToHttp().getRequest<Request>());
  if (!caller) throw new ApiError(401, undefined, 'Not authenticated');
  return caller;
});
