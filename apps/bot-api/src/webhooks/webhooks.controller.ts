import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bots/auth';
import type { Bot } from '../bots/entities/bot.entity';
import { MethodDocs } from '../method-docs';
import { DropPendingDto, SetWebhookDto } from './dto/webhook.dto';
import { WebhookInfo } from './dto/webhook-info.view';
import { WebhooksService } from './webhooks.service';
import { TRUE_SCHEMA } from '../method-docs';

const INFO =
  'getWebhookInfo: url, pending_update_count, last error, max_connections, allowed_updates, allowed_ips, platform_egress_ips, previous_secret_expires_at, auto_redeliver_dead_letters';

@ApiTags('bot webhook')
@BotAuth()
@Controller('api/v1/bots')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post('setWebhook')
  @HttpCode(200)
  @MethodDocs(
    'setWebhook: HTTPS URL and secret_token; delivery_mode becomes webhook',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    'VALIDATION',
  )
  async setWebhook(@CurrentBot() bot: Bot, @Body() dto: SetWebhookDto): Promise<true> {
    await this.webhooks.setWebhook(bot.id, dto);
    return true;
  }

  @Post('deleteWebhook')
  @HttpCode(200)
  @MethodDocs(
    'deleteWebhook: back to polling; nothing is POSTed any more',
    { status: 200, description: '`true`', schema: TRUE_SCHEMA },
    'VALIDATION',
  )
  async deleteWebhook(@CurrentBot() bot: Bot, @Body() dto: DropPendingDto): Promise<true> {
    await this.webhooks.deleteWebhook(bot.id, dto);
    return true;
  }

  @Get('getWebhookInfo')
  @MethodDocs(INFO, { status: 200, description: 'The webhook summary', type: WebhookInfo })
  getWebhookInfo(@CurrentBot() bot: Bot): Promise<WebhookInfo> {
    return this.webhooks.info(bot.id);
  }

  @Post('getWebhookInfo')
  @HttpCode(200)
  @MethodDocs(INFO, { status: 200, description: 'The webhook summary', type: WebhookInfo })
  postWebhookInfo(@CurrentBot() bot: Bot): Promise<WebhookInfo> {
    return this.webhooks.info(bot.id);
  }
}
