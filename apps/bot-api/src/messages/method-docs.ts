import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrorDoc, ApiErrorResponses } from '@app/platform';

type ErrorDoc = ApiErrorDoc | [number, string];

/** A bot route's own 403 must repeat the token guard's code, since one status is one response. */
export const BOT_NOT_AVAILABLE: ApiErrorDoc = {
  status: 403,
  code: 'BOT_NOT_AVAILABLE',
  when: 'the bot is not approved or not enabled',
};
export const NOT_VISIBLE: ApiErrorDoc = {
  status: 404,
  code: 'NOT_FOUND',
  when: 'the chat, message or file does not exist or is not visible to the caller',
};

/** Summary, success response and the business errors of one operation. */
export function MethodDocs(
  summary: string,
  success: { status: 200 | 201; description: string },
  ...errors: ErrorDoc[]
) {
  const ok = success.status === 201 ? ApiCreatedResponse : ApiOkResponse;
  return applyDecorators(
    ApiOperation({ summary }),
    ok({ description: success.description }),
    ...(errors.length > 0 ? [ApiErrorResponses(...errors)] : []),
  );
}
