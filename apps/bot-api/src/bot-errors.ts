import { ErrorCatalog } from '@app/envelope';
import { IDEMPOTENCY_ERROR_CODES } from '@app/idempotency';
import { errorResponsesFor } from '@app/platform';

/** Every business code bot-api answers (bot-service spec section 7), with its HTTP status. */
export const BotErrors = ErrorCatalog.define('VALIDATION', {
  VALIDATION: { status: 400, message: 'Invalid parameter' },
  BOT_TOKEN_REQUIRED: { status: 401, message: 'A bot token is required' },
  INVALID_BOT_TOKEN: { status: 401, message: 'The bot token is unknown, revoked or does not match the bot' },
  BOT_NOT_AVAILABLE: { status: 403, message: 'The bot is not approved or not enabled' },
  TOKEN_ALREADY_READ: { status: 410, message: 'The one-time token was already read' },
  QUERY_EXPIRED: { status: 410, message: 'The query can no longer be answered: its answer window has passed' },
  INLINE_NOT_SUPPORTED: { status: 400, message: 'The bot does not support inline queries' },
  VIRTUAL_MEMBERS_DISABLED: {
    status: 403,
    message: 'Virtual members are not enabled for this bot; platform support switches them on',
  },
  BOT_RATE_LIMIT: { status: 429, message: 'The bot send quota is exhausted' },
  FILE_URL_INVALID: { status: 403, message: 'The file URL is not valid for this key, size or type' },
  FILE_URL_EXPIRED: { status: 410, message: 'The file URL has expired' },
  UPLOAD_EXPIRED: { status: 410, message: 'The upload expired before it was completed' },
  UPLOAD_ALREADY_USED: { status: 409, message: 'The upload URL was already used' },
  UPLOAD_NOT_RECEIVED: { status: 409, message: 'No bytes were received for this upload' },
  UPLOAD_SIZE_MISMATCH: { status: 400, message: 'The bytes differ in size from the declared fileSize' },
  UPLOAD_TYPE_MISMATCH: { status: 415, message: 'The Content-Type differs from the declared fileType' },
  STORAGE_QUOTA_EXCEEDED: {
    status: 403,
    message: "The bot's stored files and pending uploads would exceed its storage quota",
  },
  ...IDEMPOTENCY_ERROR_CODES,
});

export type BotErrorCode = Parameters<typeof BotErrors.error>[0];

/** One documented error of a route: a code, or a code with when it happens. */
export type BotErrorDoc = BotErrorCode | { code: BotErrorCode; when?: string };

/** `@ApiErrors('BOT_NOT_AVAILABLE', …)`: documents a route's error responses from the registry. */
export const ApiErrors = errorResponsesFor(BotErrors);
