import { Injectable } from '@nestjs/common';
import { BotErrors } from '../bot-errors';
import { usernameTaken } from '../bots/bot-errors';
import { BotCredentialsService } from '../bots/bot-credentials.service';
import { Database, pageAnswer, pageWindow } from '@app/platform';
import { isDeepStrictEqual } from 'node:util';
import { botView, BotView } from '../bots/bot.view';
import { BotChanges, BotsStore } from '../bots/bots.store';
import { assignGeneratedUsername } from '../bots/bot-usernames';
import { systemUserIdFor } from '../users/bot-system-user-id';
import { compactRateLimits } from '../bots/rate-limits';
import { BotTokenCache } from '../bots/auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { UsersStore } from '../users/users.store';
import { AdminBotsQueryDto, AdminUpdateBotDto, RejectBotDto } from './dto/admin-bots.dto';
import { BotPage } from '../bots/bot.view';

/** Platform staff: the review queue and the switches developers cannot flip themselves. */
@Injectable()
export class AdminBotsService {
  constructor(
    private readonly database: Database,
    private readonly credentials: BotCredentialsService,
    private readonly config: BotConfig,
    private readonly tokenCache: BotTokenCache,
    private readonly bots: BotsStore,
    private readonly users: UsersStore,
  ) {}

  async list(query: AdminBotsQueryDto): Promise<BotPage> {
    const window = pageWindow(query);
    const [bots, total] = await this.bots.pageForReview(query.review_status, window.offset, window.pageSize);
    return pageAnswer(
      bots.map((bot) => botView(bot, this.config)),
      total,
      window,
    );
  }

  /**
   * pending → approved, in one transaction with the username (a derived one when the developer chose
   * none), the system user and the token. The conditional UPDATE lets exactly one of two concurrent
   * approvals through.
   */
  async approve(staffId: string, botId: string): Promise<BotView> {
    try {
      return await this.database.transaction(async (tx) => {
        const moved = await this.bots.approvePending(tx, botId, staffId);
        if (!moved) return this.explainNotPending(botId);
        const username = moved.username ?? (await assignGeneratedUsername(this.bots, tx, botId, moved.name));
        const systemUserId = systemUserIdFor(botId);
        await this.users.createBotUser(tx, systemUserId, moved.name, username);
        await this.bots.linkSystemUser(tx, botId, systemUserId);
        await this.credentials.issueForApproval(tx, botId);
        return botView(await this.bots.get(botId, tx), this.config);
      });
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  async reject(staffId: string, botId: string, dto: RejectBotDto): Promise<BotView> {
    return this.database.transaction(async (tx) => {
      if (!(await this.bots.rejectPending(tx, botId, dto.reason, staffId))) await this.explainNotPending(botId);
      return botView(await this.bots.get(botId, tx), this.config);
    });
  }

  async update(botId: string, dto: AdminUpdateBotDto): Promise<BotView> {
    const view = await this.database.transaction(async (tx) => {
      const bot = await this.bots.lock(tx, botId);
      if (!bot) throw BotErrors.notFound('Bot');
      if (dto.status !== undefined && bot.reviewStatus !== 'approved') {
        throw BotErrors.error('CONFLICT', 'Only an approved bot can be enabled or disabled');
      }
      const changes: BotChanges = {};
      if (dto.status !== undefined && dto.status !== bot.status) changes.status = bot.status = dto.status;
      if (dto.virtual_members_enabled !== undefined && dto.virtual_members_enabled !== bot.virtualMembersEnabled) {
        changes.virtual_members_enabled = bot.virtualMembersEnabled = dto.virtual_members_enabled;
      }
      if (dto.rate_limits !== undefined) {
        const rateLimits = compactRateLimits(dto.rate_limits);
        if (!isDeepStrictEqual(rateLimits, bot.rateLimits)) changes.rate_limits = bot.rateLimits = rateLimits;
      }
      bot.updatedAt = (await this.bots.update(tx, botId, changes)) ?? bot.updatedAt;
      return botView(bot, this.config);
    });
    this.tokenCache.invalidate(botId);
    return view;
  }

  private async explainNotPending(botId: string): Promise<never> {
    const bot = await this.bots.reviewOf(this.database, botId);
    if (!bot) throw BotErrors.notFound('Bot');
    throw BotErrors.error('CONFLICT', `The bot is ${bot.review_status}; only a pending application can be reviewed`);
  }
}
