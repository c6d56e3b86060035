import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { CreateSendDto } from './dto/create-send.dto';
import { Page, PageQueryDto } from './dto/page-query.dto';
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
  @ApiOperation({ summary: 'Claim a send addressed to me; creates my voucher (once per send)' })
  claim(
    @CurrentAccount() account: Account,
    @Param('sendId', new ResourceIdPipe('Send')) sendId: string,
  ): Promise<ClaimResult> {
    return this.sends.claim(account.id, sendId);
  }

  @Post('sends/:sendId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Take back an unclaimed send; the unit returns to the allocation' })
  cancel(
    @CurrentAccount() account: Account,
    @Param('sendId', new ResourceIdPipe('Send')) sendId: string,
  ): Promise<SendView> {
    return this.sends.cancel(account.id, sendId);
  }
}
