import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { AppCaller } from '../applications/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../resource-id.pipe';
import { RuntimeRoute, RuntimeSuccess } from '../app-auth/runtime-route.decorator';
import { IDEMPOTENCY_KEY_ERRORS } from '../voucher-errors';
import { RedeemDto } from './dto/redeem.dto';
import { ReverseDto } from './dto/reverse.dto';
import { RedeemResult, RedemptionView, ReverseResult } from './redemption.view';
import { RedemptionsService } from './redemptions.service';

const RedemptionId = () => Param('redemptionId', new ResourceIdPipe('Redemption'));

@ApiTags('runtime: redemptions')
@Controller('api/v1/open-platform/vouchers')
export class RedemptionsController {
  constructor(private readonly redemptions: RedemptionsService) {}

  @Post('redeem')
  @RuntimeRoute({
    permission: 'vouchers:redeem',
    rateLimit: 'redeem',
    body: true,
    guessProtected: true,
    errors: [
      { code: 'NOT_FOUND', when: 'no voucher of the calling application has this credential' },
      { code: 'VOUCHER_ALREADY_REDEEMED', when: 'the voucher is already redeemed' },
      { code: 'VOUCHER_NOT_REDEEMABLE', when: 'not yet in effect, expired or revoked' },
      ...IDEMPOTENCY_KEY_ERRORS,
      { code: 'RATE_LIMITED', when: 'too many failed look-ups by this token (guessing protection)' },
    ],
  })
  @ApiOperation({ summary: 'Redeem a voucher atomically; of concurrent redeems exactly one succeeds' })
  @RuntimeSuccess(
    201,
    'The redemption record with the redeemed `voucher`; a replay carries `Idempotent-Replayed: true`',
    RedeemResult,
  )
  @Idempotent({ required: true, claim: 'in-transaction' })
  redeem(
    @CurrentCaller() caller: AppCaller,
    @Body() body: RedeemDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.redeem(caller, body, call);
  }

  @Get('redemptions/:redemptionId')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'redemptions.read', errors: ['NOT_FOUND'] })
  @ApiOperation({ summary: 'A redemption of the calling application, with its reversal if any' })
  @RuntimeSuccess(200, 'The redemption record; `reversal` is null while it stands', RedemptionView)
  get(@CurrentCaller() caller: AppCaller, @RedemptionId() redemptionId: string): Promise<RedemptionView> {
    return this.redemptions.get(caller.application.id, redemptionId);
  }

  @Post('redemptions/:redemptionId/reverse')
  @RuntimeRoute({
    permission: 'vouchers:reverse',
    rateLimit: 'reverse',
    body: true,
    errors: [
      'NOT_FOUND',
      { code: 'REDEMPTION_ALREADY_REVERSED', when: 'the redemption was reversed before' },
      { code: 'IDEMPOTENCY_KEY_REUSED', when: "the key was used with another request (e.g. the redemption's key)" },
      { code: 'IDEMPOTENCY_KEY_IN_USE', when: 'a request with the key is still running' },
    ],
  })
  @ApiOperation({ summary: 'Reverse a redemption: the voucher is available again, or expired when past validity' })
  @RuntimeSuccess(201, 'The reversal record with the `redemption` and the `voucher`', ReverseResult)
  @Idempotent({ required: true, claim: 'in-transaction', keyHint: 'A new key, not the redemption’s' })
  reverse(
    @CurrentCaller() caller: AppCaller,
    @RedemptionId() redemptionId: string,
    @Body() body: ReverseDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.reverse(caller.application.id, redemptionId, body, call);
  }
}
