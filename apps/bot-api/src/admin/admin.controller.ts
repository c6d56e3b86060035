import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount, PlatformAdminGuard } from '@app/auth';
import { BotView, Page } from '../bots/bot.view';
import { AdminBotsService } from './admin.service';
import { AdminBotsQueryDto, AdminUpdateBotDto, RejectBotDto } from './dto/admin-bots.dto';

@ApiTags('bot review (platform staff)')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/bots/admin/bots')
export class AdminBotsController {
  constructor(private readonly admin: AdminBotsService) {}

  @Get()
  @ApiOperation({ summary: 'Review queue and bot list, oldest first' })
  list(@Query() query: AdminBotsQueryDto): Promise<Page<BotView>> {
    return this.admin.list(query);
  }

  @Post(':botId/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve: creates the system user and issues the token' })
  approve(@CurrentAccount() staff: Account, @Param('botId') botId: string): Promise<BotView> {
    return this.admin.approve(staff.id, botId);
  }

  @Post(':botId/reject')
  @HttpCode(200)
  reject(@CurrentAccount() staff: Account, @Param('botId') botId: string, @Body() dto: RejectBotDto): Promise<BotView> {
    return this.admin.reject(staff.id, botId, dto);
  }

  @Patch(':botId')
  update(@Param('botId') botId: string, @Body() dto: AdminUpdateBotDto): Promise<BotView> {
    return this.admin.update(botId, dto);
  }
}
