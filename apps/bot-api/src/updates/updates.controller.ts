import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bot-auth';
import type { Bot } from '../bots/entities/bot.entity';
import { MethodDocs } from '../messages/method-docs';
import { GetUpdatesDto } from './dto/get-updates.dto';
import { PollingService } from './polling.service';

@ApiTags('bot updates')
@BotAuth()
@Controller('api/v1/bots')
export class UpdatesController {
  constructor(private readonly polling: PollingService) {}

  @Post('getUpdates')
  @MethodDocs(
    'getUpdates: pending Updates with update_seq; offset confirms, timeout long-polls up to 50 s',
    { status: 200, description: 'Update[] in update_seq order (possibly empty)' },
    [400, 'VALIDATION'],
    {
      status: 409,
      code: 'CONFLICT',
      when: 'the bot is in webhook mode, or a newer getUpdates of the bot ended this one',
    },
  )
  @HttpCode(200)
  getUpdates(@CurrentBot() bot: Bot, @Body() dto: GetUpdatesDto) {
    return this.polling.getUpdates(bot, dto);
  }

  @Get('getUpdates')
  @MethodDocs(
    'getUpdates: pending Updates with update_seq; offset confirms, timeout long-polls up to 50 s',
    { status: 200, description: 'Update[] in update_seq order (possibly empty)' },
    [400, 'VALIDATION'],
    {
      status: 409,
      code: 'CONFLICT',
      when: 'the bot is in webhook mode, or a newer getUpdates of the bot ended this one',
    },
  )
  getUpdatesByQuery(@CurrentBot() bot: Bot, @Query() dto: GetUpdatesDto) {
    return this.polling.getUpdates(bot, dto);
  }
}
