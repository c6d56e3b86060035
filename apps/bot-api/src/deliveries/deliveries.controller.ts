import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import { DeliveriesService } from './deliveries.service';
import { DeliveryBacklogView, DeliveryDetailView, DeliveryPage, DeliveryView, RedeliveredView } from './delivery.view';
import { BulkRedeliverDto, ListDeliveriesQueryDto } from './dto/deliveries.dto';

@ApiTags('developer deliveries')
@ApiBearerAuth()
@ApiErrors(
  { code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' },
  { code: 'NOT_FOUND', when: 'not one of your bots, or no such delivery' },
)
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my/:botId/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get()
  @ApiOperation({ summary: 'Webhook deliveries of my bot, newest first' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({
    description: '`items` (update_id, status, attempts, dead_letter_at, last_error, …) and `total`',
    type: DeliveryPage,
  })
  list(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<DeliveryPage> {
    return this.deliveries.list(account.id, botId, query);
  }

  @Post('redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Redeliver every dead letter, optionally those that died within [since, until)' })
  @ApiErrors('VALIDATION', { code: 'CONFLICT', when: 'the bot has no webhook' })
  @ApiOkResponse({ description: '`{ redelivered: n }`', type: RedeliveredView })
  redeliverMany(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: BulkRedeliverDto,
  ): Promise<RedeliveredView> {
    return this.deliveries.redeliverMany(account.id, botId, dto);
  }

  // Declared before ':updateId', which would otherwise take the path.
  @Get('backlog')
  @ApiOperation({ summary: 'The backlog of my bot: pending, retrying and dead-letter deliveries, with their total' })
  @ApiOkResponse({ description: 'Counts by status and their total', type: DeliveryBacklogView })
  backlog(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<DeliveryBacklogView> {
    return this.deliveries.backlog(account.id, botId);
  }

  @Get(':updateId')
  @ApiOperation({ summary: 'One delivery with every attempt (status code, latency, error)' })
  @ApiOkResponse({ description: 'The delivery record plus `attempt_log`', type: DeliveryDetailView })
  get(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Param('updateId') updateId: string,
  ): Promise<DeliveryDetailView> {
    return this.deliveries.get(account.id, botId, updateId);
  }

  @Post(':updateId/redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deliver again: pending with a new attempt series, same update_id' })
  @ApiErrors({ code: 'CONFLICT', when: 'the delivery is still pending or retrying, or the bot has no webhook' })
  @ApiOkResponse({ description: 'The delivery record, status pending', type: DeliveryView })
  redeliver(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Param('updateId') updateId: string,
  ): Promise<DeliveryView> {
    return this.deliveries.redeliver(account.id, botId, updateId);
  }
}
