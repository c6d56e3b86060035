import { Injectable } from '@nestjs/common';
import { isBotAvailable } from '@app/bot-delivery';
import { Database } from '@app/platform';
import { BotTokenCache } from '../bots/auth/bot-token-cache';
import { BotsStore } from '../bots/bots.store';
import type { Bot } from '../bots/entities/bot.entity';
import { BotErrors } from '../bot-errors';
import { UsersStore } from '../users/users.store';
import { VerifyTokenResult } from './profile.view';

export interface BotSelf {
  id: string | null;
  bot_id: string;
  is_bot: true;
  name: string;
  username: string | null;
  description: string | null;
  short_description: string | null;
  avatar: string | null;
  scopes: string[];
  supports_inline_queries: boolean;
  friend_request_mode: Bot['friendRequestMode'];
  delivery_mode: Bot['deliveryMode'];
}

/** What a bot may read and change about itself with its own token. */
@Injectable()
export class ProfileService {
  constructor(
    private readonly database: Database,
    private readonly bots: BotsStore,
    private readonly users: UsersStore,
    private readonly tokenCache: BotTokenCache,
  ) {}

  /** `id` is the system user the bot speaks as in chats, as in Telegram's getMe. */
  me(bot: Bot): BotSelf {
    return {
      id: bot.systemUserId,
      bot_id: bot.id,
      is_bot: true,
      name: bot.name,
      username: bot.username,
      description: bot.description,
      short_description: bot.shortDescription,
      avatar: bot.avatar,
      scopes: bot.scopes,
      supports_inline_queries: bot.supportsInlineQueries,
      friend_request_mode: bot.friendRequestMode,
      delivery_mode: bot.deliveryMode,
    };
  }

  /**
   * Only "usable or not": an unknown, revoked, malformed or unavailable bot's token all answer
   * `valid: false`, so the answer tells nothing about which bots exist. `named` is the bot the token
   * names, as CheckedTokenGuard looked it up before the route limit counted the call.
   */
  verifyToken(token: string | undefined, named: Bot | null): VerifyTokenResult {
    if (!token) throw BotErrors.error('BOT_TOKEN_REQUIRED', 'Give the bot token as `token` in the body');
    return named && isBotAvailable(named) ? { valid: true, bot_id: named.id } : { valid: false };
  }

  /**
   * The bot's display name, as its developer changes it after approval: the system user carries the new
   * name into chats in the same transaction.
   */
  async setName(botId: string, name: string): Promise<true> {
    await this.database.transaction(async (tx) => {
      const bot = await this.bots.lock(tx, botId);
      if (!bot) throw BotErrors.notFound('Bot');
      if (name !== bot.name) await this.bots.update(tx, botId, { name });
      if (bot.systemUserId) await this.users.renameBotUser(tx, bot.systemUserId, name, bot.username);
    });
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getName(botId: string): Promise<{ name: string }> {
    const bot = await this.bots.get(botId);
    return { name: bot.name };
  }

  async setShortDescription(botId: string, text: string | undefined): Promise<true> {
    await this.bots.setShortDescription(botId, text ? text : null);
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getShortDescription(botId: string): Promise<{ short_description: string }> {
    const bot = await this.bots.get(botId);
    return { short_description: bot.shortDescription ?? '' };
  }

  async setDescription(botId: string, text: string | undefined): Promise<true> {
    await this.bots.setDescription(botId, text ? text : null);
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getDescription(botId: string): Promise<{ description: string }> {
    const bot = await this.bots.get(botId);
    return { description: bot.description ?? '' };
  }
}
