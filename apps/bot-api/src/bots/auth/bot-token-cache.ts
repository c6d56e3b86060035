import { Inject, Injectable } from '@nestjs/common';
import { CHANNEL_BUS, type ChannelBus, InvalidatedCache } from '@app/platform';
import type { Bot } from '../entities/bot.entity';
import { BotConfig } from '../../config/bot.config';

/** Carries the id of a bot whose row changed, after the change's commit. */
export const BOT_CHANGES_CHANNEL = 'bot-api:bot-changed';

/**
 * Token hash → bot, kept for BOT_TOKEN_CACHE_MS so a bot-token call needs no database read.
 * Every change to a bot row (token rotation or revocation, status, webhook mode, profile) calls
 * `invalidate(botId)` after its commit. Only hashes that matched a stored hash in a constant-time
 * compare are ever put here, and a SHA-256 key tells a timing probe nothing.
 */
@Injectable()
export class BotTokenCache extends InvalidatedCache<Bot> {
  constructor(@Inject(CHANNEL_BUS) bus: ChannelBus, config: BotConfig) {
    // Stryker disable next-line StringLiteral: the name only labels log lines
    super({ name: 'BotTokenCache', ttlMs: config.BOT_TOKEN_CACHE_MS, channel: BOT_CHANGES_CHANNEL, bus });
  }

  putBot(tokenHash: string, bot: Bot, startedAt: number): void {
    this.put(tokenHash, bot, [bot.id], startedAt);
  }
}
