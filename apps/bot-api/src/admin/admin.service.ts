import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BotErrors } from '../bot-errors';
import { usernameTaken } from '../bots/bot-errors';
import { BotCredentialsService } from '../bots/bot-credentials.service';
import { pageAnswer, pageWindow } from '@app/platform';
import { botView, BotView } from '../bots/bot.view';
import { BotsStore } from '../bots/bots.store';
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
    @InjectDataSource() private readonly dataSource: DataSource,
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
      return await this.dataSource.transaction(async (manager) => {
        const moved = await this.bots.approvePending(manager, botId, staffId);
        if (!moved) return this.explainNotPending(botId);
        const username = moved.username ?? (await assignGeneratedUsername(this.bots, manager, botId, moved.name));
        const systemUserId = systemUserIdFor(botId);
        await this.users.createBotUser(manager, systemUserId, moved.name, username);
        await this.bots.linkSystemUser(manager, botId, systemUserId);
        await this.credentials.issueForApproval(manager, botId);
        return botView(await this.bots.get(botId, manager), this.config);
      });
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  async reject(staffId: string, botId: string, dto: RejectBotDto): Promise<BotView> {
    return this.dataSource.transaction(async (manager) => {
      if (!(await this.bots.rejectPending(manager, botId, dto.reason, staffId))) await this.explainNotPending(botId);
      return botView(await this.bots.get(botId, manager), this.config);
    });
  }

  async update(botId: string, dto: AdminUpdateBotDto): Promise<BotView> {
    const view = await this.dataSource.transaction(async (manager) => {
      const bot = await this.bots.lock(manager, botId);
      if (!bot) throw BotErrors.notFound('Bot');
      if (dto.status !== undefined && bot.reviewStatus !== 'approved') {
        throw BotErrors.error('CONFLICT', 'Only an approved bot can be enabled or disabled');
      }
      if (dto.status !== undefined) bot.status = dto.status;
      if (dto.virtual_members_enabled !== undefined) bot.virtualMembersEnabled = dto.virtual_members_enabled;
      if (dto.rate_limits !== undefined) bot.rateLimits = compactRateLimits(dto.rate_limits);
      await this.bots.save(manager, bot);
      return botView(bot, this.config);
    });
    this.tokenCache.invalidate(botId);
    return view;
  }

  private async explainNotPending(botId: string): Promise<never> {
    const bot = await this.bots.reviewOf(this.dataSource.manager, botId);
    if (!bot) throw BotErrors.notFound('Bot');
    throw BotErrors.error('CONFLICT', `The bot is ${bot.review_status}; only a pending application can be reviewed`);
  }
}
