import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { BotTokenCache } from '../bot-auth/bot-token-cache';
import { BotTokenService } from '../bot-auth/bot-token.service';
import { Bot, isBotAvailable } from '../bots/entities/bot.entity';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: BotTokenService,
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
   * `valid: false`, so the answer tells nothing about which bots exist.
   */
  async verifyToken(token: string | undefined): Promise<{ valid: boolean; bot_id?: string }> {
    if (!token) throw new ApiError(401, 'BOT_TOKEN_REQUIRED', 'Give the bot token as `token` in the body');
    const bot = await this.tokens.findByToken(token);
    return bot && isBotAvailable(bot) ? { valid: true, bot_id: bot.id } : { valid: false };
  }

  async setShortDescription(botId: string, text: string | undefined): Promise<true> {
    await this.dataSource.query(`UPDATE bots SET short_description = $2, updated_at = now() WHERE id = $1`, [
      botId,
      text ? text : null,
    ]);
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getShortDescription(botId: string): Promise<{ short_description: string }> {
    const bot = await this.dataSource.getRepository(Bot).findOneByOrFail({ id: botId });
    return { short_description: bot.shortDescription ?? '' };
  }

  async setDescription(botId: string, text: string | undefined): Promise<true> {
    await this.dataSource.query(`UPDATE bots SET description = $2, updated_at = now() WHERE id = $1`, [
      botId,
      text ? text : null,
    ]);
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getDescription(botId: string): Promise<{ description: string }> {
    const bot = await this.dataSource.getRepository(Bot).findOneByOrFail({ id: botId });
    return { description: bot.description ?? '' };
  }
}
