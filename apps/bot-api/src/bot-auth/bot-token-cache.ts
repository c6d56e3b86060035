import { Inject, Injectable } from '@nestjs/common';
import { InvalidatedCache, REDIS } from '@app/platform';
import type Redis from 'ioredis';
import type { Bot } from '../bots/entities/bot.entity';
import { BotConfig } from '../config/bot.config';

/** Pub/sub channel names are not covered by ioredis' keyPrefix, so the channel carries the prefix itself. */
export function botChangesChannel(config: BotConfig): string {
  return `${config.REDIS_KEY_PREFIX}bot-api:bot-changed`;
}

/**
 * Token hash → bot, kept for BOT_TOKEN_CACHE_MS so a bot-token call needs no database read.
 * Every change to a bot row (token rotation or revocation, status, webhook mode, profile) calls
 * `invalidate(botId)` after its commit. Only hashes that matched a stored hash in a constant-time
 * compare are ever put here, and a SHA-256 key tells a timing probe nothing.
 */
@Injectable()
export class BotTokenCache extends InvalidatedCache<Bot> {
  constructor(@Inject(REDIS) redis: Redis, config: BotConfig) {
    super({
      name: 'BotTokenCache',
      ttlMs: config.BOT_TOKEN_CACHE_MS,
      channel: botChangesChannel(config),
      redisUrl: config.REDIS_URL,
      publisher: redis,
    });
  }

  putBot(tokenHash: string, bot: Bot, startedAt: number): void {
    this.put(tokenHash, bot, [bot.id], startedAt);
  }
}
