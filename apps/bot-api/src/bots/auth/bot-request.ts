import type { Request } from 'express';
import type { Bot } from '../entities/bot.entity';

type BotRequest = Request & { bot?: Bot };

export function setBot(req: Request, bot: Bot): void {
  (req as BotRequest).bot = bot;
}

export function botOf(req: Request): Bot | undefined {
  return (req as BotRequest).bot;
}
