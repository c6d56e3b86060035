import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { setPrincipal } from '@app/auth';
import { isBotAvailable } from '@app/bot-delivery';
import type { Request } from 'express';
import { BotTokenService, clientAddressOf } from '../bots/auth/bot-token.service';
import { setBot } from '../bots/auth/bot-request';
import { TelegramError, TELEGRAM_TEXTS } from './telegram-errors';

/** The bot token of a Telegram-style path (`/telegram/bot<token>/…`), read from the route parameter. */
export function pathToken(req: Request): string {
  const token = (req.params as Record<string, string | undefined>).token;
  return typeof token === 'string' ? token : '';
}

/**
 * The native bot-token rule on the Telegram face: the token is looked up (hashed, constant-time,
 * cached) by BotTokenService and the bot must be available. Every refusal is Telegram's 401.
 */
@Injectable()
export class TelegramTokenGuard implements CanActivate {
  constructor(private readonly tokens: BotTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = pathToken(req);
    const bot = token ? await this.tokens.findByToken(token, clientAddressOf(req)) : null;
    if (!bot || !isBotAvailable(bot)) throw new TelegramError(401, TELEGRAM_TEXTS.unauthorized);
    setBot(req, bot);
    setPrincipal(req, { tenantId: bot.id, permissions: bot.scopes });
    return true;
  }
}
