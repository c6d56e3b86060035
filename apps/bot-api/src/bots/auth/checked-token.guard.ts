import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { countAgainstCredential } from '../../rate-limits/credential-subject';
import type { Bot } from '../entities/bot.entity';
import { BotTokenService, clientAddressOf } from './bot-token.service';

type CheckedRequest = Request & { checkedToken?: { bot: Bot | null } };

/**
 * verifyToken's token, looked up before the route limit counts the call (guards run before
 * interceptors): a token that names a bot counts against that bot's verify_token budget, anything else
 * against the caller's address, so junk sent from an address shared with a real bot's server never uses
 * up that server's checks. The look-up is kept for the handler, which does not repeat it. A body
 * without a string token is left to validation.
 */
@Injectable()
export class CheckedTokenGuard implements CanActivate {
  constructor(private readonly tokens: BotTokenService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<CheckedRequest>();
    const token = (req.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') return true;
    const bot = await this.tokens.findByToken(token, clientAddressOf(req));
    req.checkedToken = { bot };
    if (bot) countAgainstCredential(req, `bot:${bot.id}`);
    return true;
  }
}

/** The bot the body's token named (null: none), as CheckedTokenGuard found it; undefined if it did not look. */
export function checkedTokenOf(req: Request): { bot: Bot | null } | undefined {
  return (req as CheckedRequest).checkedToken;
}
