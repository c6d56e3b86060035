import { applyDecorators, CanActivate, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { carriesIdempotencyKey } from '@app/idempotency';
import type { Request, Response } from 'express';
import { BotErrors } from '../bot-errors';
import { RequireScopes } from '../bots/auth';
import { botOf } from '../bots/auth/bot-request';
import { quotaHeaders, SendQuotaService } from './send-quota.service';

export const SEND_SCOPE = 'messages:send';

const COUNTED_AFTER_CLAIM = 'bot-api:send-quota-after-claim';

/** Counts the deferred send of a request; throws 429 BOT_RATE_LIMIT like the guard would have. */
export type DeferredQuota = () => Promise<void>;

const deferred = new WeakMap<Request, DeferredQuota>();

/** The quota this request's send still has to count, when the guard left it for after the key's claim. */
export function deferredQuotaOf(req: Request): DeferredQuota | undefined {
  return deferred.get(req);
}

/** A media group stores one message per item, so it costs one send per item. */
function sendsIn(req: Request): number {
  const media = (req.body as { media?: unknown } | undefined)?.media;
  return Array.isArray(media) ? Math.min(Math.max(media.length, 1), 10) : 1;
}

/**
 * Counts the call against the bot's send quotas and reports what is left in X-BotRateLimit-* headers.
 * On a route marked `CountedAfterClaim`, a request with an Idempotency-Key is counted only once its key
 * is claimed (see `deferredQuotaOf`): a replay, or a retry turned away while the first still runs,
 * spends nothing, and a bot whose quota is used up still gets the answer of a send it already made.
 */
@Injectable()
export class SendQuotaGuard implements CanActivate {
  constructor(
    private readonly quotas: SendQuotaService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const bot = botOf(req);
    if (!bot) throw BotErrors.error('BOT_TOKEN_REQUIRED', 'Authorization: Bearer <bot token> is required');
    const count = async () => {
      res.set(quotaHeaders(await this.quotas.consume(bot, sendsIn(req))));
    };
    if (this.reflector.get<boolean>(COUNTED_AFTER_CLAIM, context.getHandler()) && carriesIdempotencyKey(req)) {
      deferred.set(req, count);
      return true;
    }
    await count();
    return true;
  }
}

/** Needs scope messages:send (403 FORBIDDEN) and counts against the send quota (429 BOT_RATE_LIMIT). */
export const SendOperation = () => applyDecorators(RequireScopes(SEND_SCOPE), UseGuards(SendQuotaGuard));

/**
 * For a send that claims an Idempotency-Key inside its transaction: with a key, the quota is counted
 * by the use case right after the claim (`deferredQuotaOf`), which it must do before it writes.
 */
export const CountedAfterClaim = () => SetMetadata(COUNTED_AFTER_CLAIM, true);

/** Changes to existing messages need the send scope but do not count as sends. */
export const MessagingOperation = () => RequireScopes(SEND_SCOPE);
