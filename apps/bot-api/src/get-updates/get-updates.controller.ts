import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { bearerToken, hashSecretToken } from '@app/auth';
import type { Request } from 'express';
import { BotAuth, CurrentBot } from '../bots/auth';
import type { Bot } from '../bots/entities/bot.entity';
import { MethodDocs } from '../method-docs';
import { GetUpdatesDto } from './dto/get-updates.dto';
import { UpdateView } from './dto/update.view';
import { PollingService } from './polling.service';

/** One documentation for both verbs: the GET takes the same fields as query parameters. */
const GET_UPDATES_DOCS = MethodDocs(
  'getUpdates: pending Updates with update_seq; offset confirms, timeout long-polls up to 50 s',
  { status: 200, description: 'Update[] in update_seq order (possibly empty)', type: [UpdateView] },
  'VALIDATION',
  {
    code: 'CONFLICT',
    when: 'the bot is in webhook mode (setWebhook also ends a waiting call), or a newer getUpdates of the bot ended this one',
  },
);

@ApiTags('bot updates')
@BotAuth()
@Controller('api/v1/bots')
export class UpdatesController {
  constructor(private readonly polling: PollingService) {}

  @Post('getUpdates')
  @GET_UPDATES_DOCS
  @HttpCode(200)
  getUpdates(@CurrentBot() bot: Bot, @Req() req: Request, @Body() dto: GetUpdatesDto): Promise<UpdateView[]> {
    return this.polling.getUpdates(bot, tokenHashOf(req), dto);
  }

  @Get('getUpdates')
  @GET_UPDATES_DOCS
  getUpdatesByQuery(@CurrentBot() bot: Bot, @Req() req: Request, @Query() dto: GetUpdatesDto): Promise<UpdateView[]> {
    return this.polling.getUpdates(bot, tokenHashOf(req), dto);
  }
}

/** The bot token guard already accepted this header, so the token is there. */
function tokenHashOf(req: Request): string {
  return hashSecretToken(bearerToken(req.headers.authorization) ?? '');
}
