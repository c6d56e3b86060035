import type { ExecutionContext } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import type { Request } from 'express';

/** The status Nest will send for a successful call of this handler (@HttpCode or the method default). */
export function routeStatus(context: ExecutionContext): number {
  const declared = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined;
  if (declared) return declared;
  return context.switchToHttp().getRequest<Request>().method === 'POST' ? 201 : 200;
}
