import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { AppCaller } from '../applications/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../resource-id.pipe';
import { RuntimeRoute, RuntimeSuccess } from '../app-auth/runtime-route.decorator';
import { IDEMPOTENCY_KEY_ERRORS } from '../voucher-errors';
import { IssueDto } from './dto/issue.dto';
import { VerifyDto } from './dto/verify.dto';
import { IssueService } from './issue.service';
import { IssueResult, VerifyResult, VoucherView } from './voucher.view';
import { VouchersService } from './vouchers.service';

@ApiTags('runtime: vouchers')
@Controller('api/v1/open-platform/vouchers')
export class VouchersController {
  constructor(
    private readonly issuing: IssueService,
    private readonly vouchers: VouchersService,
  ) {}

  @Post('issue')
  @RuntimeRoute({
    permission: 'vouchers:issue',
    rateLimit: 'issue',
    body: true,
    errors: [
      {
        code: 'RECIPIENT_NOT_AUTHORIZED',
        when: 'the user never authorised the application and holds none of its vouchers',
      },
      { code: 'NOT_FOUND', when: 'no such template in the calling application' },
      { code: 'TEMPLATE_NOT_ACTIVE', when: 'the template is not active or its validity has ended' },
      { code: 'ISSUE_LIMIT_REACHED', when: 'no stock left (issue_limit − issued − allocated)' },
      { code: 'PER_USER_LIMIT_REACHED', when: "the user holds the template's per_user_limit" },
      { code: 'DUPLICATE_EXTERNAL_ID', when: 'external_issue_id already used in the application' },
      ...IDEMPOTENCY_KEY_ERRORS,
    ],
  })
  @ApiOperation({ summary: 'Issue a voucher of an active template to a user (no plaintext credential in the answer)' })
  @RuntimeSuccess(201, '`issuanceId` and `voucher`; a replay carries `Idempotent-Replayed: true`', IssueResult)
  @Idempotent({ required: true, claim: 'in-transaction' })
  issue(
    @CurrentCaller() caller: AppCaller,
    @Body() body: IssueDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.issuing.issue(caller.application.id, body, call);
  }

  @Post('verify')
  @HttpCode(200)
  @RuntimeRoute({
    permission: 'vouchers:verify',
    rateLimit: 'verify',
    body: true,
    guessProtected: true,
    errors: [
      { code: 'NOT_FOUND', when: 'no voucher of the calling application has this credential' },
      { code: 'RATE_LIMITED', when: 'too many failed look-ups by this token (guessing protection)' },
    ],
  })
  @ApiOperation({ summary: "Read a voucher's current state by QR token or code; marks an expired one, never redeems" })
  @RuntimeSuccess(200, '`voucher` (with its current status) and `redeemable`', VerifyResult)
  verify(@CurrentCaller() caller: AppCaller, @Body() body: VerifyDto): Promise<VerifyResult> {
    return this.vouchers.verify(caller, body);
  }

  @Post(':voucherId/revoke')
  @HttpCode(200)
  @RuntimeRoute({
    permission: 'vouchers:issue',
    rateLimit: 'vouchers.revoke',
    errors: ['NOT_FOUND', { code: 'CONFLICT', when: 'the voucher is not available' }],
  })
  @ApiOperation({ summary: 'Revoke an available voucher; it can no longer be redeemed' })
  @RuntimeSuccess(200, 'The voucher, status revoked', VoucherView)
  revoke(
    @CurrentCaller() caller: AppCaller,
    @Param('voucherId', new ResourceIdPipe('Voucher')) voucherId: string,
  ): Promise<VoucherView> {
    return this.vouchers.revoke(caller.application.id, voucherId);
  }
}
