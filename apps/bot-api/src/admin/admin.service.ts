import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { usernameTaken } from '../bots/bot-errors';
import { BotCredentialsService } from '../bots/bot-credentials.service';
import { botView, BotView, Page } from '../bots/bot.view';
import { pageOf } from '../bots/dto/page-query.dto';
import { Bot, systemUserIdFor } from '../bots/entities/bot.entity';
import { compactRateLimits } from '../bots/rate-limits';
import { BotTokenCache } from '../bot-auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { AdminBotsQueryDto, AdminUpdateBotDto, RejectBotDto } from './dto/admin-bots.dto';

/** Platform staff: the review queue and the switches developers cannot flip themselves. */
@Injectable()
export class AdminBotsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credentials: BotCredentialsService,
    private readonly config: BotConfig,
    private readonly tokenCache: BotTokenCache,
  ) {}

  async list(query: AdminBotsQueryDto): Promise<Page<BotView>> {
    const { page, pageSize, skip } = pageOf(query);
    const [bots, total] = await this.dataSource.getRepository(Bot).findAndCount({
      where: query.review_status ? { reviewStatus: query.review_status } : {},
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take: pageSize,
    });
    return { items: bots.map((bot) => botView(bot, this.config)), total, page, page_size: pageSize };
  }

  /**
   * pending → approved, in one transaction with the system user and the token. The conditional
   * UPDATE lets exactly one of two concurrent approvals through.
   */
  async approve(staffId: string, botId: string): Promise<BotView> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const [moved]: [{ name: string; username: string | null }[], number] = await manager.query(
          `UPDATE bots SET review_status = 'approved', status = 'enabled', delivery_mode = 'polling',
                  reviewed_by = $2, reviewed_at = now(), updated_at = now()
            WHERE id = $1 AND review_status = 'pending'
           RETURNING name, username`,
          [botId, staffId],
        );
        if (moved.length === 0) await this.explainNotPending(botId);
        const systemUserId = systemUserIdFor(botId);
        await manager.query(`INSERT INTO users (id, name, is_bot, username) VALUES ($1, $2, true, $3)`, [
          systemUserId,
          moved[0].name,
          moved[0].username,
        ]);
        await manager.query(`UPDATE bots SET system_user_id = $2 WHERE id = $1`, [botId, systemUserId]);
        await this.credentials.issueForApproval(manager, botId);
        return botView(await manager.getRepository(Bot).findOneByOrFail({ id: botId }), this.config);
      });
    } catch (error) {
      throw usernameTaken(error) ?? error;
    }
  }

  async reject(staffId: string, botId: string, dto: RejectBotDto): Promise<BotView> {
    return this.dataSource.transaction(async (manager) => {
      const [moved]: [unknown[], number] = await manager.query(
        `UPDATE bots SET review_status = 'rejected', rejection_reason = $2, reviewed_by = $3, reviewed_at = now(),
                updated_at = now()
          WHERE id = $1 AND review_status = 'pending' RETURNING id`,
        [botId, dto.reason, staffId],
      );
      if (moved.length === 0) await this.explainNotPending(botId);
      return botView(await manager.getRepository(Bot).findOneByOrFail({ id: botId }), this.config);
    });
  }

  async update(botId: string, dto: AdminUpdateBotDto): Promise<BotView> {
    const view = await this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(Bot);
      const bot = await repo.findOne({ where: { id: botId }, lock: { mode: 'pessimistic_write' } });
      if (!bot) throw ApiError.notFound('Bot');
      if (dto.status !== undefined && bot.reviewStatus !== 'approved') {
        throw new ApiError(409, 'CONFLICT', 'Only an approved bot can be enabled or disabled');
      }
      if (dto.status !== undefined) bot.status = dto.status;
      if (dto.virtual_members_enabled !== undefined) bot.virtualMembersEnabled = dto.virtual_members_enabled;
      if (dto.rate_limits !== undefined) bot.rateLimits = compactRateLimits(dto.rate_limits);
      await repo.save(bot);
      return botView(bot, this.config);
    });
    this.tokenCache.invalidate(botId);
    return view;
  }

  private async explainNotPending(botId: string): Promise<never> {
    const [bot]: { review_status: string }[] = await this.dataSource.query(
      `SELECT review_status FROM bots WHERE id = $1`,
      [botId],
    );
    if (!bot) throw ApiError.notFound('Bot');
    throw new ApiError(409, 'CONFLICT', `The bot is ${bot.review_status}; only a pending application can be reviewed`);
  }
}
