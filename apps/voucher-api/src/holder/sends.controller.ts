import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import { HandOutPreflight } from '../allocations/hand-out-preflight.guard';
import { ApiErrors, HAND_OUT_ERRORS, IDEMPOTENCY_KEY_ERRORS } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { CreateSendDto } from './dto/create-send.dto';
import { PageQueryDto } from '@app/platform';
import { BackpackPage, ClaimResult, InboxPage, SendView } from './dto/send.view';
import { SendsService } from './sends.service';

const SEND_KEY_HINT =
  'Optional. With a key, a retry of the same send (same key, same body) answers the first send again and sends ' +
  'nothing more; without one, each call sends another unit';

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
  @ApiCreatedResponse({
    description: 'The send, in status `sending`; a replay carries `Idempotent-Replayed: true`',
    type: SendView,
  })
  @ApiErrors(
    { code: 'NOT_FOUND', when: 'not an allocation of the caller' },
    { code: 'INSUFFICIENT_STOCK', when: 'nothing remains in the allocation' },
    ...HAND_OUT_ERRORS,
    ...IDEMPOTENCY_KEY_ERRORS,
  )
  @UseGuards(HandOutPreflight(CreateSendDto, 'recipient_user_id'))
  @Idempotent({ required: false, claim: 'in-transaction', keyHint: SEND_KEY_HINT })
  @ApiOperation({
    summary: 'Send one unit of an allocation to a user, who may then claim it',
    description:
      'One unit leaves `remaining` and waits as a send in status `sending` until the recipient claims it ' +
      '(`claimed`) or the sender cancels it (`cancelled`, the unit returns to `remaining`). Without an ' +
      '`Idempotency-Key` every call sends one more unit, so a retry after a lost answer may send twice; with one, ' +
      'the retry answers the first send. Refusals of the send itself (`NOT_FOUND`, `INSUFFICIENT_STOCK`, …) are ' +
      'stored with the key; a body that fails validation and a `recipient_user_id` the service does not know yet ' +
      '(a user becomes known with their first call to the service with their own JWT) are answered before the key ' +
      'is taken and not stored.',
  })
  send(
    @CurrentAccount() account: Account,
    @Param('allocationId', new ResourceIdPipe('Allocation')) allocationId: string,
    @Body() dto: CreateSendDto,
    @IdempotencyKey() call: IdempotentCall | undefined,
  ): Promise<SendView | RenderedBody> {
    return this.sends.send(account.id, allocationId, dto.recipient_user_id, call);
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
  @ApiOperation({
    summary: 'Claim a send addressed to me; creates my voucher (once per send)',
    description:
      'Only the recipient can claim, and only a send in status `sending`. Claiming needs no authorisation of ' +
      'the application by the recipient (POST /holder/authorizations is for issuing): the sender chose them, and ' +
      'claiming is their consent. The per-user limit of the template applies. Claiming again answers 409 ' +
      '`SEND_NOT_CLAIMABLE`.',
  })
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
