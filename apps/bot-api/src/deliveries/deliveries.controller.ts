import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { DeliveriesService } from './deliveries.service';
import { BulkRedeliverDto, ListDeliveriesQueryDto } from './dto/deliveries.dto';

@ApiTags('developer deliveries')
@ApiBearerAuth()
@ApiErrorResponses(
  { status: 401, code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' },
  { status: 404, code: 'NOT_FOUND', when: 'not one of your bots, or no such delivery' },
)
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my/:botId/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get()
  @ApiOperation({ summary: 'Webhook deliveries of my bot, newest first' })
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOkResponse({ description: '`items` (update_id, status, attempts, dead_letter_at, last_error, …) and `total`' })
  list(@CurrentAccount() account: Account, @Param('botId') botId: string, @Query() query: ListDeliveriesQueryDto) {
    return this.deliveries.list(account.id, botId, query);
  }

  @Post('redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Redeliver every dead letter, optionally those that died within [since, until)' })
  @ApiErrorResponses([400, 'VALIDATION'], { status: 409, code: 'CONFLICT', when: 'the bot has no webhook' })
  @ApiOkResponse({ description: '`{ redelivered: n }`' })
  redeliverMany(@CurrentAccount() account: Account, @Param('botId') botId: string, @Body() dto: BulkRedeliverDto) {
    return this.deliveries.redeliverMany(account.id, botId, dto);
  }

  @Get(':updateId')
  @ApiOperation({ summary: 'One delivery with every attempt (status code, latency, error)' })
  @ApiOkResponse({ description: 'The delivery record plus `attempt_log`' })
  get(@CurrentAccount() account: Account, @Param('botId') botId: string, @Param('updateId') updateId: string) {
    return this.deliveries.get(account.id, botId, updateId);
  }

  @Post(':updateId/redeliver')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deliver again: pending with a new attempt series, same update_id' })
  @ApiErrorResponses({
    status: 409,
    code: 'CONFLICT',
    when: 'the delivery is still pending or retrying, or the bot has no webhook',
  })
  @ApiOkResponse({ description: 'The delivery record, status pending' })
  redeliver(@CurrentAccount() account: Account, @Param('botId') botId: string, @Param('updateId') updateId: string) {
    return this.deliveries.redeliver(account.id, botId, updateId);
  }
}
