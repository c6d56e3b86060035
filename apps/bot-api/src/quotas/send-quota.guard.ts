import { applyDecorators, CanActivate, ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BotErrors } from '../bot-errors';
import { RequireScopes } from '../bot-auth';
import { botOf } from '../bot-auth/bot-request';
import { quotaHeaders, SendQuotaService } from './send-quota.service';

export const SEND_SCOPE = 'messages:send';

/** A media group stores one message per item, so it costs one send per item. */
function sendsIn(req: Request): number {
  const media = (req.body as { media?: unknown } | undefined)?.media;
  return Array.isArray(media) ? Math.min(Math.max(media.length, 1), 10) : 1;
}

/** Counts the call against the bot's send quotas and reports what is left in X-BotRateLimit-* headers. */
@Injectable()
export class SendQuotaGuard implements CanActivate {
  constructor(private readonly quotas: SendQuotaService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const bot = botOf(req);
    if (!bot) throw BotErrors.error('BOT_TOKEN_REQUIRED', 'Authorization: Bearer <bot token> is required');
    const state = await this.quotas.consume(bot, sendsIn(req));
    context.switchToHttp().getResponse<Response>().set(quotaHeaders(state));
    return true;
  }
}

/** Needs scope messages:send (403 FORBIDDEN) and counts against the send quota (429 BOT_RATE_LIMIT). */
export const SendOperation = () => applyDecorators(RequireScopes(SEND_SCOPE), UseGuards(SendQuotaGuard));

/** Changes to existing messages need the send scope but do not count as sends. */
export const MessagingOperation = () => RequireScopes(SEND_SCOPE);
