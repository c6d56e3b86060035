import { Injectable } from '@nestjs/common';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { isWarmUpRequest } from '@app/platform';
import type { Request } from 'express';
import { performance } from 'node:perf_hooks';
import { BotsStore } from '../bots.store';
import type { Bot } from '../entities/bot.entity';
import { BotTokenCache } from './bot-token-cache';
import { BotTokenDirectory } from './bot-token-directory';
import { TokenFailureLimiter } from './token-failure-limiter';

/** `sbot_` plus 43 base62 characters, as issued by generateSecretToken('sbot_'). */
const BOT_TOKEN_SHAPE = /^sbot_[0-9A-Za-z]{43}$/;

/**
 * The address a request's unknown tokens count against (the client's, through trusted proxies); none
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
    private readonly directory: BotTokenDirectory,
    private readonly failures: TokenFailureLimiter,
  ) {}

  /**
   * The bot whose current, unrevoked token this is, whatever its availability. A value without a
   * token's shape (public knowledge) is refused without a query. A caller's token (one with an address)
   * is checked first against the directory of current tokens, so a made-up one costs the database
   * nothing; only a token that names no bot counts against the address, which past
   * BOT_TOKEN_FAILURES_PER_MINUTE gets 429 for its next one. The lock-out therefore never refuses a real
   * bot, whatever else its address sent. Without an address (a look-up that is not a caller's attempt)
   * the token is looked up and nothing is counted.
   */
  async findByToken(token: string, clientAddress?: string): Promise<Bot | null> {
    if (!BOT_TOKEN_SHAPE.test(token)) return null;
    const hash = hashSecretToken(token);
    const cached = this.cache.get(hash);
    if (cached) return cached;
    if (!clientAddress) return this.lookUp(hash);
    if (await this.directory.mayHold(hash, performance.now())) {
      const bot = await this.lookUp(hash);
      if (bot) return bot;
    }
    await this.failures.recordFailure(clientAddress);
    return null;
  }

  private async lookUp(hash: string): Promise<Bot | null> {
    const startedAt = this.cache.readStarted();
    const found = await this.bots.findByTokenHash(hash);
    if (!found) return null;
    const { tokenHash, ...bot } = found;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: the query matched the hash already; the compare is defence in depth
    if (!tokenHash || !constantTimeEqual(tokenHash, hash)) return null;
    this.cache.putBot(hash, bot, startedAt);
    return bot;
  }
}
