import { Injectable } from '@nestjs/common';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { BotsStore } from '../bots/bots.store';
import type { Bot } from '../bots/entities/bot.entity';
import { BotTokenCache } from './bot-token-cache';

/** `sbot_` plus 43 base62 characters, as issued by generateSecretToken('sbot_'). */
const BOT_TOKEN_SHAPE = /^sbot_[0-9A-Za-z]{43}$/;

@Injectable()
export class BotTokenService {
  constructor(
    private readonly bots: BotsStore,
    private readonly cache: BotTokenCache,
  ) {}

  /**
   * The bot whose current, unrevoked token this is, whatever its availability. Every input is
   * hashed and looked up the same way, so a malformed or foreign token costs the same as a wrong one.
   */
  async findByToken(token: string): Promise<Bot | null> {
    const hash = hashSecretToken(token);
    const cached = this.cache.get(hash);
    if (cached) return BOT_TOKEN_SHAPE.test(token) ? cached : null;
    const startedAt = this.cache.readStarted();
    const bot = await this.bots.findByTokenHash(hash);
    if (!bot || !bot.tokenHash || !constantTimeEqual(bot.tokenHash, hash) || !BOT_TOKEN_SHAPE.test(token)) {
      return null;
    }
    bot.tokenHash = null;
    this.cache.putBot(hash, bot, startedAt);
    return bot;
  }
}
