import { Injectable } from '@nestjs/common';
import { createHmac, hkdfSync } from 'node:crypto';
import { BotConfig } from '../config/bot.config';

/**
 * `chat_instance` of callback queries: the same opaque value for every click in one chat on one bot's
 * buttons, so a bot can keep per-chat state, yet neither the chat id nor another bot's value can be
 * derived from it. A keyed hash (HMAC-SHA256) of chat and bot, with a key derived (HKDF) from
 * BOT_TOKEN_ENCRYPTION_KEY for this one purpose: nothing to store, and no new secret to deploy.
 */
@Injectable()
export class ChatInstances {
  private readonly key: Buffer;

  constructor(config: BotConfig) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(config.BOT_TOKEN_ENCRYPTION_KEY, 'hex'), '', 'bot-api chat_instance v1', 32),
    );
  }

  of(chatId: string, botId: string): string {
    return createHmac('sha256', this.key).update(`${chatId}:${botId}`).digest('base64url').slice(0, 22);
  }
}
