import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { bearerToken, setPrincipal } from '@app/auth';
import { isBotAvailable } from '@app/bot-delivery';
import type { Request } from 'express';
import { BotTokenService, clientAddressOf } from './bot-token.service';
import { setBot } from './bot-request';
import { BotErrors } from '../../bot-errors';

/**
 * Accepts only `Authorization: Bearer sbot_…`. Account JWTs and application tokens are a different
 * kind and are refused here exactly like an unknown token.
 */
@Injectable()
export class BotTokenGuard implements CanActivate {
  constructor(private readonly tokens: BotTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req.headers.authorization);
    if (!token) throw BotErrors.error('BOT_TOKEN_REQUIRED', 'Authorization: Bearer <bot token> is required');
    const bot = await this.tokens.findByToken(token, clientAddressOf(req));
    if (!bot) throw BotErrors.error('INVALID_BOT_TOKEN', 'Bot token is unknown, revoked or malformed');
    if (!isBotAvailable(bot)) {
      throw BotErrors.error('BOT_NOT_AVAILABLE', 'The bot is not approved or not enabled');
    }
    setBot(req, bot);
    setPrincipal(req, { tenantId: bot.id, permissions: bot.scopes });
    return true;
  }
}
