import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { PermissionsGuard, RequirePermissions } from '@app/auth';
import { API_SECURITY } from '@app/platform';
import { ApiErrors } from '../../bot-errors';
import { BotTokenGuard } from './bot-token.guard';

export const BOT_TOKEN_SECURITY = API_SECURITY.botToken;

/** Bot-token authentication for a controller or handler. */
export const BotAuth = () =>
  applyDecorators(
    UseGuards(BotTokenGuard),
    ApiBearerAuth(BOT_TOKEN_SECURITY),
    ApiErrors(
      { code: 'BOT_TOKEN_REQUIRED', when: 'no bearer token' },
      { code: 'INVALID_BOT_TOKEN', when: 'unknown, revoked or malformed token, or another kind of token' },
      { code: 'BOT_NOT_AVAILABLE', when: 'the bot is not approved or not enabled' },
    ),
  );

/**
 * Every listed scope must be granted to the calling bot (403 FORBIDDEN otherwise). Put it on a
 * handler of a @BotAuth() controller: class guards run first, so the principal is already set.
 */
export const RequireScopes = (...scopes: string[]) =>
  applyDecorators(
    RequirePermissions(...scopes),
    UseGuards(PermissionsGuard),
    ApiErrors(
      { code: 'BOT_NOT_AVAILABLE', when: 'the bot is not approved or not enabled' },
      { code: 'FORBIDDEN', when: `the bot lacks the scope ${scopes.join(', ')}` },
    ),
  );
