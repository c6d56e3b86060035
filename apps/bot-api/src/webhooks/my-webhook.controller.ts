import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { DropPendingDto, SetWebhookDto } from './dto/webhook.dto';
import { WebhookInfo, WebhooksService } from './webhooks.service';

@ApiTags('developer bots')
@ApiBearerAuth()
@ApiErrorResponses(
  { status: 401, code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' },
  { status: 404, code: 'NOT_FOUND', when: 'not one of your bots' },
  { status: 409, code: 'CONFLICT', when: 'the bot is not approved yet' },
)
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my/:botId/webhook')
export class MyWebhookController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the webhook of my bot (as setWebhook, without the bot token)' })
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOkResponse({ description: 'The webhook configuration (getWebhookInfo shape)' })
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
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOkResponse({ description: 'The webhook configuration after removal (getWebhookInfo shape)' })
  remove(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: DropPendingDto,
  ): Promise<WebhookInfo> {
    return this.webhooks.deleteForOwner(account.id, botId, dto);
  }

  @Get()
  @ApiOperation({ summary: 'The webhook configuration of my bot (getWebhookInfo shape)' })
  @ApiOkResponse({ description: 'The webhook summary' })
  get(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<WebhookInfo> {
    return this.webhooks.infoForOwner(account.id, botId);
  }
}
