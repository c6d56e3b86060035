import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { BotErrors } from '../../bot-errors';
import type { Bot } from '../entities/bot.entity';
import { botOf } from './bot-request';

/** The bot authenticated by BotTokenGuard. */
export const CurrentBot = createParamDecorator((_data: unknown, context: ExecutionContext): Bot => {
  const bot = botOf(context.switchToHttp().getRequest<Request>());
  if (!bot) throw BotErrors.error('BOT_TOKEN_REQUIRED', 'Authorization: Bearer <bot token> is required');
  return bot;
});
