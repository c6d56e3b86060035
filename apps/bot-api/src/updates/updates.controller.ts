import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bot-auth';
import type { Bot } from '../bots/entities/bot.entity';
import { GetUpdatesDto } from './dto/get-updates.dto';
import { PollingService } from './polling.service';

@ApiTags('bot updates')
@BotAuth()
@Controller('api/v1/bots')
export class UpdatesController {
  constructor(private readonly polling: PollingService) {}

  @Post('getUpdates')
  @HttpCode(200)
  getUpdates(@CurrentBot() bot: Bot, @Body() dto: GetUpdatesDto) {
    return this.polling.getUpdates(bot, dto);
  }

  @Get('getUpdates')
  getUpdatesByQuery(@CurrentBot() bot: Bot, @Query() dto: GetUpdatesDto) {
    return this.polling.getUpdates(bot, dto);
  }
}
