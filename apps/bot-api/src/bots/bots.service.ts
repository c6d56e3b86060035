import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { BotTokenCache } from '../bot-auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { usernameTaken } from './bot-errors';
import { botView, BotView, Page } from './bot.view';
import { PageQueryDto, pageOf } from './dto/page-query.dto';
import { SubmitBotDto } from './dto/submit-bot.dto';
import { UpdateBotDto } from './dto/update-bot.dto';
import { Bot, DEFAULT_BOT_SCOPES, systemUserIdFor } from './entities/bot.entity';
import { compactRateLimits, defaultRateLimits } from './rate-limits';

export function newBotId(): string {
  return randomBytes(12).toString('hex');
}

/** The developer's side of a bot: apply, list, read and edit, always confined to the caller's own bots. */
@Injectable()
export class BotsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: BotConfig,
    private readonly tokenCache: BotTokenCache,
  ) {}

  async submit(ownerId: string, dto: SubmitBotDto): Promise<BotView> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(Bot);
        const bot = repo.create({
          id: newBotId(),
          ownerId,
          name: dto.name,
          username: dto.username ?? null,
          description: dto.description ?? null,
          shortDescription: null,
          avatar: dto.avatar ?? null,
          scopes: dto.scopes ? [...new Set(dto.scopes)] : [...DEFAULT_BOT_SCOPES],
          reviewStatus: 'pending',
          rejectionReason: null,
          reviewedBy: null,
          reviewedAt: null,
          status: 'disabled',
          systemUserId: null,
          deliveryMode: 'polling',
          allowedUpdates: null,
          supportsInlineQueries: false,
          friendRequestMode: 'auto_accept',
          rateLimits: {},
          virtualMembersEnabled: false,
          tokenHash: null,
          tokenPrefix: null,
          tokenIssuedAt: null,
          tokenRevokedAt: null,
          oneTimeTokenCiphertext: null,
          oneTimeTokenExpiresAt: null,
        });
        if (bot.username) await this.assertUsernameFree(manager, bot.username, bot.id);
        await repo.insert(bot);
        return botView(await repo.findOneByOrFail({ id: bot.id }), this.config);
      });
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  async list(ownerId: string, query: PageQueryDto): Promise<Page<BotView>> {
    const { page, pageSize, skip } = pageOf(query);
    const [bots, total] = await this.dataSource.getRepository(Bot).findAndCount({
      where: { ownerId },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip,
      take: pageSize,
    });
    return { items: bots.map((bot) => botView(bot, this.config)), total, page, page_size: pageSize };
  }

  async get(ownerId: string, botId: string): Promise<BotView> {
    const bot = await this.dataSource.getRepository(Bot).findOneBy({ id: botId, ownerId });
    if (!bot) throw ApiError.notFound('Bot');
    return botView(bot, this.config);
  }

  async update(ownerId: string, botId: string, dto: UpdateBotDto): Promise<BotView> {
    this.assertWithinDefaults(dto);
    try {
      const view = await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(Bot);
        const bot = await repo.findOne({ where: { id: botId, ownerId }, lock: { mode: 'pessimistic_write' } });
        if (!bot) throw ApiError.notFound('Bot');
        if (bot.reviewStatus !== 'approved') {
          throw new ApiError(409, 'CONFLICT', 'A bot can be changed only after its approval');
        }
        if (dto.name !== undefined) bot.name = dto.name;
        if (dto.description !== undefined) bot.description = dto.description;
        if (dto.short_description !== undefined) bot.shortDescription = dto.short_description;
        if (dto.avatar !== undefined) bot.avatar = dto.avatar;
        if (dto.supports_inline_queries !== undefined) bot.supportsInlineQueries = dto.supports_inline_queries;
        if (dto.rate_limits !== undefined) bot.rateLimits = compactRateLimits(dto.rate_limits);
        if (dto.username !== undefined && dto.username !== bot.username) {
          if (dto.username) await this.assertUsernameFree(manager, dto.username, bot.id);
          bot.username = dto.username;
        }
        await repo.save(bot);
        await this.syncSystemUser(manager, bot);
        return botView(bot, this.config);
      });
      this.tokenCache.invalidate(botId);
      return view;
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  /** The system user carries the bot's display name and @username into chats. */
  private async syncSystemUser(manager: EntityManager, bot: Bot): Promise<void> {
    if (!bot.systemUserId) return;
    await manager.query(`UPDATE users SET name = $2, username = $3, updated_at = now() WHERE id = $1`, [
      bot.systemUserId,
      bot.name,
      bot.username,
    ]);
  }

  /** A friendly early answer; the unique indexes stay the real guard against a concurrent taker. */
  private async assertUsernameFree(manager: EntityManager, username: string, botId: string): Promise<void> {
    const taken: unknown[] = await manager.query(
      `SELECT 1 FROM bots WHERE lower(username) = lower($1) AND review_status <> 'rejected' AND id <> $2
       UNION ALL SELECT 1 FROM users WHERE lower(username) = lower($1) AND id <> $3 LIMIT 1`,
      [username, botId, systemUserIdFor(botId)],
    );
    if (taken.length > 0) throw new ApiError(409, 'CONFLICT', 'This username is already taken');
  }

  private assertWithinDefaults(dto: UpdateBotDto): void {
    if (!dto.rate_limits) return;
    const defaults = defaultRateLimits(this.config);
    const problems = (Object.keys(defaults) as (keyof typeof defaults)[])
      .filter((key) => dto.rate_limits?.[key] != null && dto.rate_limits[key]! > defaults[key])
      .map((key) => ({ field: `rate_limits.${key}`, problem: `must be at most the global default ${defaults[key]}` }));
    if (problems.length > 0) {
      throw ApiError.badRequest(
        `Validation failed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
        problems,
      );
    }
  }
}
