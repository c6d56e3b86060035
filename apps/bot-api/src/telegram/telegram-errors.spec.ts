import { ApiError } from '@app/envelope';
import { BotErrors } from '../bot-errors';
import { TELEGRAM_ERROR_TABLE, TelegramError, toTelegramError } from './telegram-errors';

describe('the Telegram error table', () => {
  it('has a Telegram answer for every code of the native registry', () => {
    expect(Object.keys(TELEGRAM_ERROR_TABLE).sort()).toEqual(Object.keys(BotErrors.codes).sort());
  });

  it('answers missing chats and messages as Bad Request with Telegram wording', () => {
    expect(toTelegramError(BotErrors.error('NOT_FOUND', 'Chat not found'))).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: chat not found',
    });
    expect(toTelegramError(BotErrors.invalid('Validation failed: text: too long')).description).toBe(
      'Bad Request: validation failed: text: too long',
    );
  });

  it('answers every unusable token as a bare 401 Unauthorized', () => {
    for (const code of ['BOT_TOKEN_REQUIRED', 'INVALID_BOT_TOKEN', 'BOT_NOT_AVAILABLE', 'UNAUTHORIZED'] as const) {
      expect(toTelegramError(BotErrors.error(code))).toEqual({
        ok: false,
        error_code: 401,
        description: 'Unauthorized',
      });
    }
  });

  it('answers refusals with Forbidden: and conflicts with Conflict:', () => {
    expect(toTelegramError(BotErrors.error('FORBIDDEN', 'The message was not sent by this bot')).description).toBe(
      'Forbidden: the message was not sent by this bot',
    );
    expect(toTelegramError(BotErrors.error('CONFLICT', 'The query was already answered'))).toMatchObject({
      error_code: 409,
      description: 'Conflict: the query was already answered',
    });
  });

  it('turns a send quota refusal into Too Many Requests with retry_after from Retry-After', () => {
    const quota = BotErrors.error('BOT_RATE_LIMIT', 'Send quota reached', { headers: { 'Retry-After': '7' } });
    expect(toTelegramError(quota)).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    });
    expect(toTelegramError(BotErrors.error('RATE_LIMITED')).parameters).toEqual({ retry_after: 1 });
  });

  it('answers an expired callback query with Telegram fixed text', () => {
    expect(toTelegramError(BotErrors.error('QUERY_EXPIRED')).description).toBe(
      'Bad Request: query is too old and response timeout expired or query ID is invalid',
    );
  });

  it('keeps decided Telegram errors and hides anything unexpected behind a 500', () => {
    expect(toTelegramError(new TelegramError(404, 'Not Found: method not found'))).toEqual({
      ok: false,
      error_code: 404,
      description: 'Not Found: method not found',
    });
    expect(toTelegramError(new Error('connection reset'))).toEqual({
      ok: false,
      error_code: 500,
      description: 'Internal Server Error',
    });
    expect(toTelegramError(new ApiError(500, undefined, 'db down')).description).toBe('Internal Server Error');
  });
});
