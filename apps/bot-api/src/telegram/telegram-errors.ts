import { ApiError } from '@app/envelope';
import { BotErrorCode, BotErrors } from '../bot-errors';

/** Telegram's error body: `{ ok: false, error_code, description, parameters? }`. */
export interface TelegramErrorBody {
  ok: false;
  error_code: number;
  description: string;
  parameters?: { retry_after?: number };
}

/** How one native code reads on the Telegram face: a status and the description's fixed prefix. */
interface TelegramErrorRule {
  status: number;
  /** `Bad Request`, `Forbidden`, …; the native message (first letter lowered) follows after `: `. */
  prefix: string;
  /** The whole description when Telegram has a fixed text for it and the native message would not fit. */
  fixed?: string;
}

const BAD_REQUEST = { status: 400, prefix: 'Bad Request' };
const UNAUTHORIZED = { status: 401, prefix: 'Unauthorized', fixed: 'Unauthorized' };
const FORBIDDEN = { status: 403, prefix: 'Forbidden' };
const CONFLICT = { status: 409, prefix: 'Conflict' };

/**
 * Every native error code as the Telegram face answers it. Telegram reports a missing chat or message
 * as 400 `Bad Request: chat not found`, an unusable token (unknown, revoked, bot not approved or
 * disabled) as 401 `Unauthorized`, and an answer window that passed as a 400, so those move.
 */
export const TELEGRAM_ERROR_TABLE: Record<BotErrorCode, TelegramErrorRule> = {
  VALIDATION: BAD_REQUEST,
  BOT_TOKEN_REQUIRED: UNAUTHORIZED,
  INVALID_BOT_TOKEN: UNAUTHORIZED,
  UNAUTHORIZED,
  BOT_NOT_AVAILABLE: UNAUTHORIZED,
  TOKEN_ALREADY_READ: BAD_REQUEST,
  QUERY_EXPIRED: {
    ...BAD_REQUEST,
    fixed: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
  },
  INLINE_NOT_SUPPORTED: BAD_REQUEST,
  VIRTUAL_MEMBERS_DISABLED: FORBIDDEN,
  BOT_RATE_LIMIT: { status: 429, prefix: 'Too Many Requests' },
  RATE_LIMITED: { status: 429, prefix: 'Too Many Requests' },
  FILE_URL_INVALID: BAD_REQUEST,
  FILE_URL_EXPIRED: BAD_REQUEST,
  UPLOAD_EXPIRED: BAD_REQUEST,
  UPLOAD_ALREADY_USED: BAD_REQUEST,
  UPLOAD_NOT_RECEIVED: BAD_REQUEST,
  UPLOAD_SIZE_MISMATCH: BAD_REQUEST,
  UPLOAD_TYPE_MISMATCH: BAD_REQUEST,
  STORAGE_QUOTA_EXCEEDED: FORBIDDEN,
  IDEMPOTENCY_KEY_REUSED: CONFLICT,
  IDEMPOTENCY_KEY_IN_USE: CONFLICT,
  FORBIDDEN,
  NOT_FOUND: BAD_REQUEST,
  METHOD_NOT_ALLOWED: BAD_REQUEST,
  CONFLICT,
  GONE: BAD_REQUEST,
  PAYLOAD_TOO_LARGE: { status: 413, prefix: 'Request Entity Too Large', fixed: 'Request Entity Too Large' },
  UNSUPPORTED_MEDIA_TYPE: BAD_REQUEST,
  INTERNAL_ERROR: { status: 500, prefix: 'Internal Server Error', fixed: 'Internal Server Error' },
  SERVICE_UNAVAILABLE: { status: 502, prefix: 'Bad Gateway', fixed: 'Bad Gateway' },
};

/**
 * The Telegram face's texts that more than one place answers, so each is written once
 * (telegram-error-texts.spec.ts fails on a text written at two places, or on one of these written out).
 */
export const TELEGRAM_TEXTS = {
  unauthorized: 'Unauthorized',
  methodNotFound: 'Not Found: method not found',
  notFound: 'Not Found',
  entityTooLarge: 'Request Entity Too Large',
  malformedMultipart: 'Bad Request: malformed multipart body',
  inlineMessageNotEditable:
    'Bad Request: messages sent via inline mode cannot be edited here; give chat_id and message_id',
  pollConflict: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
  webhookActive:
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
  chatNotFound: 'Bad Request: chat not found',
  textEmpty: 'Bad Request: message text is empty',
} as const;

/** An error whose Telegram answer is already decided (an unknown method, a Telegram-only parameter rule). */
export class TelegramError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
    this.name = 'TelegramError';
  }

  static badRequest(what: string): TelegramError {
    return new TelegramError(400, `Bad Request: ${what}`);
  }
}

function lowerFirst(text: string): string {
  if (/^[A-Z][a-z]/.test(text)) return text.charAt(0).toLowerCase() + text.slice(1);
  return text;
}

function retryAfterOf(error: ApiError): number | undefined {
  const header = error.headers?.['Retry-After'];
  const seconds = header === undefined ? NaN : Number(header);
  return Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds)) : undefined;
}

function bodyOf(status: number, description: string, retryAfter?: number): TelegramErrorBody {
  return {
    ok: false,
    error_code: status,
    description,
    ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
  };
}

/** The Telegram answer of any failure: native ApiErrors through the table, anything else a 500. */
export function toTelegramError(error: unknown): TelegramErrorBody {
  if (error instanceof TelegramError) return bodyOf(error.status, error.description, error.retryAfter);
  if (!(error instanceof ApiError)) return bodyOf(500, 'Internal Server Error');
  const code = (error.code ?? BotErrors.defaultCodeFor(error.status)) as BotErrorCode;
  const rule: TelegramErrorRule | undefined = BotErrors.has(code) ? TELEGRAM_ERROR_TABLE[code] : undefined;
  if (!rule)
    return bodyOf(
      error.status >= 500 ? 500 : 400,
      error.status >= 500 ? 'Internal Server Error' : `Bad Request: ${lowerFirst(error.message)}`,
    );
  if (rule.status === 429) {
    const retryAfter = retryAfterOf(error) ?? 1;
    return bodyOf(429, `Too Many Requests: retry after ${retryAfter}`, retryAfter);
  }
  return bodyOf(rule.status, rule.fixed ?? `${rule.prefix}: ${lowerFirst(error.message)}`);
}
