import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { AppCaller } from '../app-auth/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { RuntimeRoute, RuntimeSuccess } from '../app-auth/runtime-route.decorator';
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
      { status: 404, code: 'NOT_FOUND', when: 'no voucher of the calling application has this credential' },
      { status: 409, code: 'VOUCHER_ALREADY_REDEEMED', when: 'the voucher is already redeemed' },
      { status: 409, code: 'VOUCHER_NOT_REDEEMABLE', when: 'not yet in effect, expired or revoked' },
      { status: 409, code: 'IDEMPOTENCY_KEY_REUSED', when: 'the key was used with another request' },
      { status: 409, code: 'IDEMPOTENCY_KEY_IN_USE', when: 'a request with the key is still running' },
      { status: 429, code: 'RATE_LIMITED', when: 'too many failed look-ups by this token (guessing protection)' },
    ],
  })
  @ApiOperation({ summary: 'Redeem a voucher atomically; of concurrent redeems exactly one succeeds' })
  @RuntimeSuccess(
    201,
    'The redemption record with the redeemed `voucher`; a replay carries `Idempotent-Replayed: true`',
    RedeemResult,
  )
  @ApiHeader({ name: 'Idempotency-Key', required: true })
  @Idempotent({ required: true, claim: 'in-transaction' })
  redeem(
    @CurrentCaller() caller: AppCaller,
    @Body() body: RedeemDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.redeem(caller, body, call);
  }

  @Get('redemptions/:redemptionId')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'redemptions.read', errors: [[404, 'NOT_FOUND']] })
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
      [404, 'NOT_FOUND'],
      { status: 409, code: 'REDEMPTION_ALREADY_REVERSED', when: 'the redemption was reversed before' },
      {
        status: 409,
        code: 'IDEMPOTENCY_KEY_REUSED',
        when: "the key was used with another request (e.g. the redemption's key)",
      },
      { status: 409, code: 'IDEMPOTENCY_KEY_IN_USE', when: 'a request with the key is still running' },
    ],
  })
  @ApiOperation({ summary: 'Reverse a redemption: the voucher is available again, or expired when past validity' })
  @RuntimeSuccess(201, 'The reversal record with the `redemption` and the `voucher`', ReverseResult)
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'A new key, not the redemption’s' })
  @Idempotent({ required: true, claim: 'in-transaction' })
  reverse(
    @CurrentCaller() caller: AppCaller,
    @RedemptionId() redemptionId: string,
    @Body() body: ReverseDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.reverse(caller.application.id, redemptionId, body, call);
  }
}
