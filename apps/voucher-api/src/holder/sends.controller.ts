import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { CreateSendDto } from './dto/create-send.dto';
import { Page, PageQueryDto } from '../pagination/page-query.dto';
import { InboxItemView, SendView } from './dto/send.view';
import { BackpackItemView, ClaimResult, SendsService } from './sends.service';

@ApiTags('holder')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/open-platform/holder')
export class SendsController {
  constructor(private readonly sends: SendsService) {}

  @Get('backpack')
  @ApiOperation({ summary: 'Stock allocated to me as a sender' })
  backpack(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<Page<BackpackItemView>> {
    return this.sends.backpack(account.id, query);
  }

  @Post('backpack/:allocationId/sends')
  @ApiCreatedResponse({ description: 'The send, in status `sending`' })
  @ApiErrorResponses(
    { status: 404, code: 'NOT_FOUND', when: 'not an allocation of the caller' },
    { status: 409, code: 'INSUFFICIENT_STOCK', when: 'nothing remains in the allocation' },
    { status: 403, code: 'APPLICATION_DISABLED', when: 'the application is disabled' },
    { status: 403, code: 'FEATURE_DISABLED', when: 'the vouchers feature is closed' },
    { status: 409, code: 'TEMPLATE_NOT_ACTIVE', when: 'the template is not active' },
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
  inbox(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<Page<InboxItemView>> {
    return this.sends.inbox(account.id, query);
  }

  @Post('sends/:sendId/claim')
  @ApiCreatedResponse({ description: '`send` (claimed) and `voucher` (without credentials; see GET /holder/vouchers)' })
  @ApiErrorResponses(
    { status: 404, code: 'NOT_FOUND', when: 'not a send addressed to the caller' },
    { status: 409, code: 'SEND_NOT_CLAIMABLE', when: 'already claimed or cancelled' },
    { status: 409, code: 'PER_USER_LIMIT_REACHED', when: "the caller holds the template's per-user limit" },
    { status: 403, code: 'APPLICATION_DISABLED', when: 'the application is disabled' },
    { status: 403, code: 'FEATURE_DISABLED', when: 'the vouchers feature is closed' },
    { status: 409, code: 'TEMPLATE_NOT_ACTIVE', when: 'the template is not active' },
  )
  @ApiOperation({ summary: 'Claim a send addressed to me; creates my voucher (once per send)' })
  claim(
    @CurrentAccount() account: Account,
    @Param('sendId', new ResourceIdPipe('Send')) sendId: string,
  ): Promise<ClaimResult> {
    return this.sends.claim(account.id, sendId);
  }

  @Post('sends/:sendId/cancel')
  @ApiOkResponse({ description: 'The send, in status `cancelled`' })
  @ApiErrorResponses(
    { status: 404, code: 'NOT_FOUND', when: 'not a send of the caller' },
    { status: 409, code: 'SEND_NOT_CANCELLABLE', when: 'already claimed or cancelled' },
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
