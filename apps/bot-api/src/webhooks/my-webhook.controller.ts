import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import { DropPendingDto, SetWebhookDto } from './dto/webhook.dto';
import { WebhookInfo } from './dto/webhook-info.view';
import { WebhooksService } from './webhooks.service';

@ApiTags('developer bots')
@ApiBearerAuth()
@ApiErrors(
  { code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' },
  { code: 'NOT_FOUND', when: 'not one of your bots' },
  { code: 'CONFLICT', when: 'the bot is not approved yet' },
)
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my/:botId/webhook')
export class MyWebhookController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the webhook of my bot (as setWebhook, without the bot token)' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: 'The webhook configuration (getWebhookInfo shape)', type: WebhookInfo })
  set(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: SetWebhookDto,
  ): Promise<WebhookInfo> {
    return this.webhooks.setForOwner(account.id, botId, dto);
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete the webhook of my bot: back to polling' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({ description: 'The webhook configuration after removal (getWebhookInfo shape)', type: WebhookInfo })
  remove(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: DropPendingDto,
  ): Promise<WebhookInfo> {
    return this.webhooks.deleteForOwner(account.id, botId, dto);
  }

  @Get()
  @ApiOperation({ summary: 'The webhook configuration of my bot (getWebhookInfo shape)' })
  @ApiOkResponse({ description: 'The webhook summary', type: WebhookInfo })
  get(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<WebhookInfo> {
    return this.webhooks.infoForOwner(account.id, botId);
  }
}
