import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { AppCaller } from '../app-auth/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { RuntimeRoute } from '../app-auth/runtime-route.decorator';
import { RedeemDto } from './dto/redeem.dto';
import { ReverseDto } from './dto/reverse.dto';
import type { RedemptionView } from './redemption.view';
import { RedemptionsService } from './redemptions.service';

const RedemptionId = () => Param('redemptionId', new ResourceIdPipe('Redemption'));

@ApiTags('runtime: redemptions')
@Controller('api/v1/open-platform/vouchers')
export class RedemptionsController {
  constructor(private readonly redemptions: RedemptionsService) {}

  @Post('redeem')
  @RuntimeRoute({ permission: 'vouchers:redeem', rateLimit: 'redeem', body: true, guessProtected: true })
  @ApiHeader({ name: 'Idempotency-Key', required: true })
  @Idempotent({ required: true })
  redeem(
    @CurrentCaller() caller: AppCaller,
    @Body() body: RedeemDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.redeem(caller, body, call);
  }

  @Get('redemptions/:redemptionId')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'redemptions.read' })
  get(@CurrentCaller() caller: AppCaller, @RedemptionId() redemptionId: string): Promise<RedemptionView> {
    return this.redemptions.get(caller.application.id, redemptionId);
  }

  @Post('redemptions/:redemptionId/reverse')
  @RuntimeRoute({ permission: 'vouchers:reverse', rateLimit: 'reverse', body: true })
  @ApiHeader({ name: 'Idempotency-Key', required: true, description: 'A new key, not the redemption’s' })
  @Idempotent({ required: true })
  reverse(
    @CurrentCaller() caller: AppCaller,
    @RedemptionId() redemptionId: string,
    @Body() body: ReverseDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.redemptions.reverse(caller.application.id, redemptionId, body, call);
  }
}
