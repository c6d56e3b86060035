import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount, PlatformAdminGuard } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import { BotPage, BotView } from '../bots/bot.view';
import { AdminBotsService } from './admin.service';
import { AdminBotsQueryDto, AdminUpdateBotDto, RejectBotDto } from './dto/admin-bots.dto';

@ApiTags('bot review (platform staff)')
@ApiBearerAuth()
@ApiErrors('UNAUTHORIZED', { code: 'FORBIDDEN', when: 'not platform staff' })
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/bots/admin/bots')
export class AdminBotsController {
  constructor(private readonly admin: AdminBotsService) {}

  @Get()
  @ApiOperation({ summary: 'Review queue and bot list, oldest first' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: '`items`, `total`, `page`, `pageSize`', type: BotPage })
  list(@Query() query: AdminBotsQueryDto): Promise<BotPage> {
    return this.admin.list(query);
  }

  @Post(':botId/approve')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve: creates the system user and issues the token',
    description:
      'A bot that applied without a username gets one derived from its name, unique and ending in `bot` ' +
      '(`Latte bot` → `latte_bot`, then `latte_2_bot` … `latte_20_bot`, then `latte_<bot_id>_bot`), so getMe always ' +
      'carries one, as Telegram’s does; the developer may change it with PATCH /my/:botId.',
  })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'not pending' })
  @ApiOkResponse({
    description: 'The approved bot: status enabled, delivery_mode polling, system_user_id set',
    type: BotView,
  })
  approve(@CurrentAccount() staff: Account, @Param('botId') botId: string): Promise<BotView> {
    return this.admin.approve(staff.id, botId);
  }

  @Post(':botId/reject')
  @HttpCode(200)
  @ApiErrors('VALIDATION', 'NOT_FOUND', { code: 'CONFLICT', when: 'not pending' })
  @ApiOperation({ summary: 'Reject a pending application with a reason' })
  @ApiOkResponse({ description: 'The rejected bot with rejection_reason', type: BotView })
  reject(@CurrentAccount() staff: Account, @Param('botId') botId: string, @Body() dto: RejectBotDto): Promise<BotView> {
    return this.admin.reject(staff.id, botId, dto);
  }

  @Patch(':botId')
  @ApiErrors('VALIDATION', 'NOT_FOUND', { code: 'CONFLICT', when: 'status change of a bot that is not approved' })
  @ApiOperation({ summary: 'Enable or disable a bot, switch virtual members, set any rate limits' })
  @ApiOkResponse({ description: 'The changed bot object', type: BotView })
  update(@Param('botId') botId: string, @Body() dto: AdminUpdateBotDto): Promise<BotView> {
    return this.admin.update(botId, dto);
  }
}
