import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { PermissionsGuard, RequirePermissions } from '@app/auth';
import { BotTokenGuard } from './bot-token.guard';

export const BOT_TOKEN_SECURITY = 'bot-token';

/** Bot-token authentication for a controller or handler. */
export const BotAuth = () => applyDecorators(UseGuards(BotTokenGuard), ApiBearerAuth(BOT_TOKEN_SECURITY));

/**
 * Every listed scope must be granted to the calling bot (403 FORBIDDEN otherwise). Put it on a
 * handler of a @BotAuth() controller: class guards run first, so the principal is already set.
 */
export const RequireScopes = (...scopes: string[]) =>
  applyDecorators(RequirePermissions(...scopes), UseGuards(PermissionsGuard));
