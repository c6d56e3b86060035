import { applyDecorators, Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, SchemaObject } from '@nestjs/swagger';
import { ApiErrors, BotErrorDoc } from './bot-errors';

/** A bot route's own 403 must repeat the token guard's code, since one status is one response. */
export const BOT_NOT_AVAILABLE = {
  code: 'BOT_NOT_AVAILABLE',
  when: 'the bot is not approved or not enabled',
} as const satisfies BotErrorDoc;
export const NOT_VISIBLE = {
  code: 'NOT_FOUND',
  when: 'the chat, message or file does not exist or is not visible to the caller',
} as const satisfies BotErrorDoc;

/** What a success answers in `data`: a view class, an array of one (`[View]`), or a plain schema. */
export interface SuccessDoc {
  status: 200 | 201;
  description: string;
  type?: Type<unknown> | [Type<unknown>];
  schema?: SchemaObject;
}

/** The `data` of operations that answer only `true`. */
export const TRUE_SCHEMA: SchemaObject = { type: 'boolean', enum: [true] };

/** Summary, success response and the business errors of one operation. */
export function MethodDocs(
  summary: string,
  success: SuccessDoc,
  ...errors: BotErrorDoc[]
): MethodDecorator & ClassDecorator {
  const ok = success.status === 201 ? ApiCreatedResponse : ApiOkResponse;
  const { status: _status, ...response } = success;
  return applyDecorators(ApiOperation({ summary }), ok(response), ...(errors.length > 0 ? [ApiErrors(...errors)] : []));
}
