import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors, HAND_OUT_ERRORS } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { CreateSendDto } from './dto/create-send.dto';
import { PageQueryDto } from '@app/platform';
import { BackpackPage, ClaimResult, InboxPage, SendView } from './dto/send.view';
import { SendsService } from './sends.service';

@ApiTags('holder')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/open-platform/holder')
export class SendsController {
  constructor(private readonly sends: SendsService) {}

  @Get('backpack')
  @ApiOperation({ summary: 'Stock allocated to me as a sender' })
  @ApiOkResponse({ description: 'A page of my allocations, newest first', type: BackpackPage })
  backpack(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<BackpackPage> {
    return this.sends.backpack(account.id, query);
  }

  @Post('backpack/:allocationId/sends')
  @ApiCreatedResponse({ description: 'The send, in status `sending`', type: SendView })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'not an allocation of the caller' },
    { code: 'INSUFFICIENT_STOCK', when: 'nothing remains in the allocation' },
    ...HAND_OUT_ERRORS,
  )
  @ApiOperation({ summary: 'Send one unit of an allocation to a user, who may then claim it' })
  send(
    @CurrentAccount() account: Account,
    @Param('allocationId', new ResourceIdPipe('Allocation')) allocationId: string,
    @Body() dto: CreateSendDto,
  ): Promise<SendView> {
    return this.sends.send(account.id, allocationId, dto.recipient_user_id);
  }

  @Get('inbox')
  @ApiOperation({ summary: 'Sends addressed to me, newest first' })
  @ApiOkResponse({ description: 'A page of sends addressed to me', type: InboxPage })
  inbox(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<InboxPage> {
    return this.sends.inbox(account.id, query);
  }

  @Post('sends/:sendId/claim')
  @ApiCreatedResponse({
    description: '`send` (claimed) and `voucher` (without credentials; see GET /holder/vouchers)',
    type: ClaimResult,
  })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'not a send addressed to the caller' },
    { code: 'SEND_NOT_CLAIMABLE', when: 'already claimed or cancelled' },
    { code: 'PER_USER_LIMIT_REACHED', when: "the caller holds the template's per-user limit" },
    ...HAND_OUT_ERRORS,
  )
  @ApiOperation({ summary: 'Claim a send addressed to me; creates my voucher (once per send)' })
  claim(
    @CurrentAccount() account: Account,
    @Param('sendId', new ResourceIdPipe('Send')) sendId: string,
  ): Promise<ClaimResult> {
    return this.sends.claim(account.id, sendId);
  }

  @Post('sends/:sendId/cancel')
  @ApiOkResponse({ description: 'The send, in status `cancelled`', type: SendView })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'not a send of the caller' },
    { code: 'SEND_NOT_CANCELLABLE', when: 'already claimed or cancelled' },
  )
  @HttpCode(200)
  @ApiOperation({ summary: 'Take back an unclaimed send; the unit returns to the allocation' })
  cancel(
    @CurrentAccount() account: Account,
    @Param('sendId', new ResourceIdPipe('Send')) sendId: string,
  ): Promise<SendView> {
    return this.sends.cancel(account.id, sendId);
  }
}
