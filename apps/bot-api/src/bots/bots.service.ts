import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { BotErrors } from '../bot-errors';
import { BotTokenCache } from './auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { UsersStore } from '../users/users.store';
import { usernameTaken } from './bot-errors';
import { DeliveryDomain } from '@app/bot-delivery';
import { Database, PageQueryDto, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import { botView, BotView } from './bot.view';
import { Bot, BotChanges, BotsStore } from './bots.store';
import { assignGeneratedUsername } from './bot-usernames';
import { SubmitBotDto } from './dto/submit-bot.dto';
import { UpdateBotDto } from './dto/update-bot.dto';
import { DEFAULT_BOT_SCOPES } from './entities/bot.entity';
import { systemUserIdFor } from '../users/bot-system-user-id';
import { compactRateLimits, defaultRateLimits } from './rate-limits';
import { BotPage } from './bot.view';

export function newBotId(): string {
  return randomBytes(12).toString('hex');
}

/** The developer's side of a bot: apply, list, read and edit, always confined to the caller's own bots. */
@Injectable()
export class BotsService {
  constructor(
    private readonly database: Database,
    private readonly config: BotConfig,
    private readonly tokenCache: BotTokenCache,
    private readonly bots: BotsStore,
    private readonly users: UsersStore,
    private readonly delivery: DeliveryDomain,
  ) {}

  async submit(ownerId: string, dto: SubmitBotDto): Promise<BotView> {
    try {
      return await this.database.transaction(async (tx) => {
        const application = {
          id: newBotId(),
          ownerId,
          name: dto.name,
          username: dto.username ?? null,
          description: dto.description ?? null,
          avatar: dto.avatar ?? null,
          scopes: dto.scopes ? [...new Set(dto.scopes)] : [...DEFAULT_BOT_SCOPES],
        };
        if (application.username) await this.assertUsernameFree(tx, application.username, application.id);
        await this.bots.insertApplication(tx, application);
        await this.delivery.createSettings(tx, application.id);
        return botView(await this.bots.get(application.id, tx), this.config);
      });
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  async list(ownerId: string, query: PageQueryDto): Promise<BotPage> {
    const window = pageWindow(query);
    const [bots, total] = await this.bots.pageOfOwner(ownerId, window.offset, window.pageSize);
    return pageAnswer(
      bots.map((bot) => botView(bot, this.config)),
      total,
      window,
    );
  }

  async get(ownerId: string, botId: string): Promise<BotView> {
    const bot = await this.bots.findOwned(ownerId, botId);
    if (!bot) throw BotErrors.notFound('Bot');
    return botView(bot, this.config);
  }

  async update(ownerId: string, botId: string, dto: UpdateBotDto): Promise<BotView> {
    this.assertWithinDefaults(dto);
    try {
      const view = await this.database.transaction(async (tx) => {
        const bot = await this.bots.lock(tx, botId, ownerId);
        if (!bot) throw BotErrors.notFound('Bot');
        if (bot.reviewStatus !== 'approved') {
          throw BotErrors.error('CONFLICT', 'A bot can be changed only after its approval');
        }
        const changes: BotChanges = {};
        if (dto.name !== undefined && dto.name !== bot.name) changes.name = bot.name = dto.name;
        if (dto.description !== undefined && dto.description !== bot.description) {
          changes.description = bot.description = dto.description;
        }
        if (dto.short_description !== undefined && dto.short_description !== bot.shortDescription) {
          changes.short_description = bot.shortDescription = dto.short_description;
        }
        if (dto.avatar !== undefined && dto.avatar !== bot.avatar) changes.avatar = bot.avatar = dto.avatar;
        if (dto.supports_inline_queries !== undefined && dto.supports_inline_queries !== bot.supportsInlineQueries) {
          changes.supports_inline_queries = bot.supportsInlineQueries = dto.supports_inline_queries;
        }
        if (dto.rate_limits !== undefined) {
          const rateLimits = compactRateLimits(dto.rate_limits);
          if (!isDeepStrictEqual(rateLimits, bot.rateLimits)) changes.rate_limits = bot.rateLimits = rateLimits;
        }
        if (dto.username !== undefined && dto.username !== bot.username) {
          await this.assertUsernameFree(tx, dto.username, bot.id);
          changes.username = bot.username = dto.username;
        }
        // A bot approved before approvals gave every bot a username gets one with its next change.
        bot.username ??= await assignGeneratedUsername(this.bots, tx, bot.id, bot.name);
        await this.bots.update(tx, bot.id, changes);
        if (dto.auto_redeliver_dead_letters !== undefined) {
          await this.delivery.setAutoRedeliver(tx, bot.id, dto.auto_redeliver_dead_letters);
        }
        await this.syncSystemUser(tx, bot);
        return botView(await this.bots.get(bot.id, tx), this.config);
      });
      this.tokenCache.invalidate(botId);
      return view;
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  /** The system user carries the bot's display name and @username into chats. */
  private async syncSystemUser(on: SqlTarget, bot: Bot): Promise<void> {
    if (!bot.systemUserId) return;
    await this.users.renameBotUser(on, bot.systemUserId, bot.name, bot.username);
  }

  /** A friendly early answer; the unique indexes stay the real guard against a concurrent taker. */
  private async assertUsernameFree(on: SqlTarget, username: string, botId: string): Promise<void> {
    const taken = await this.bots.usernameTaken(on, username, botId, systemUserIdFor(botId));
    if (taken) throw BotErrors.error('CONFLICT', 'This username is already taken');
  }

  private assertWithinDefaults(dto: UpdateBotDto): void {
    if (!dto.rate_limits) return;
    const defaults = defaultRateLimits(this.config);
    const problems = (Object.keys(defaults) as (keyof typeof defaults)[])
      .filter((key) => dto.rate_limits?.[key] != null && dto.rate_limits[key]! > defaults[key])
      .map((key) => ({ field: `rate_limits.${key}`, problem: `must be at most the global default ${defaults[key]}` }));
    if (problems.length > 0) {
      throw BotErrors.invalid(
        `Validation failed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
        problems,
      );
    }
  }
}
