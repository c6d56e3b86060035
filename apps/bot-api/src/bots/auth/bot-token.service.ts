import { Injectable } from '@nestjs/common';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { isWarmUpRequest } from '@app/platform';
import type { Request } from 'express';
import { BotsStore } from '../bots.store';
import type { Bot } from '../entities/bot.entity';
import { BotTokenCache } from './bot-token-cache';
import { TokenFailureLimiter } from './token-failure-limiter';

/** `sbot_` plus 43 base62 characters, as issued by generateSecretToken('sbot_'). */
const BOT_TOKEN_SHAPE = /^sbot_[0-9A-Za-z]{43}$/;

/**
 * The address a request's failed look-ups count against (the client's, through trusted proxies); none
 * for the app's own warm-up, whose made-up tokens must not lock its loopback address out.
 */
export function clientAddressOf(req: Request): string | undefined {
  if (isWarmUpRequest(req)) return undefined;
  return req.ip ?? req.socket.remoteAddress;
}

@Injectable()
export class BotTokenService {
  constructor(
    private readonly bots: BotsStore,
    private readonly cache: BotTokenCache,
    private readonly failures: TokenFailureLimiter,
  ) {}

  /**
   * The bot whose current, unrevoked token this is, whatever its availability. A value that does not
   * have a token's shape (public knowledge) is refused without a query; a well-shaped token that names
   * no bot counts against the client's address, and an address past BOT_TOKEN_FAILURES_PER_MINUTE gets
   * 429 before its next look-up reaches the database. Without an address (a lookup that is not a
   * caller's attempt) nothing is counted.
   */
  async findByToken(token: string, clientAddress?: string): Promise<Bot | null> {
    if (!BOT_TOKEN_SHAPE.test(token)) return null;
    const hash = hashSecretToken(token);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    if (clientAddress) await this.failures.assertNotLocked(clientAddress);
    const startedAt = this.cache.readStarted();
    const bot = await this.bots.findByTokenHash(hash);
    if (!bot || !bot.tokenHash || !constantTimeEqual(bot.tokenHash, hash)) {
      if (clientAddress) await this.failures.recordFailure(clientAddress);
      return null;
    }
    bot.tokenHash = null;
    this.cache.putBot(hash, bot, startedAt);
    return bot;
  }
}
