import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { RenderedBody } from '@app/envelope';
import { Idempotent, IdempotencyKey, IdempotentCall } from '@app/idempotency';
import type { AppCaller } from '../app-auth/app-caller';
import { CurrentCaller } from '../app-auth/current-caller.decorator';
import { ResourceIdPipe } from '../app-auth/resource-id.pipe';
import { RuntimeRoute } from '../app-auth/runtime-route.decorator';
import { IssueDto } from './dto/issue.dto';
import { VerifyDto } from './dto/verify.dto';
import { IssueService } from './issue.service';
import type { VoucherView } from './voucher.view';
import { VerifyResult, VouchersService } from './vouchers.service';

@ApiTags('runtime: vouchers')
@Controller('api/v1/open-platform/vouchers')
export class VouchersController {
  constructor(
    private readonly issuing: IssueService,
    private readonly vouchers: VouchersService,
  ) {}

  @Post('issue')
  @RuntimeRoute({ permission: 'vouchers:issue', rateLimit: 'issue', body: true })
  @ApiHeader({ name: 'Idempotency-Key', required: true })
  @Idempotent({ required: true })
  issue(
    @CurrentCaller() caller: AppCaller,
    @Body() body: IssueDto,
    @IdempotencyKey() call: IdempotentCall,
  ): Promise<RenderedBody> {
    return this.issuing.issue(caller.application.id, body, call);
  }

  @Post('verify')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:verify', rateLimit: 'verify', body: true, guessProtected: true })
  verify(@CurrentCaller() caller: AppCaller, @Body() body: VerifyDto): Promise<VerifyResult> {
    return this.vouchers.verify(caller, body);
  }

  @Post(':voucherId/revoke')
  @HttpCode(200)
  @RuntimeRoute({ permission: 'vouchers:issue', rateLimit: 'vouchers.revoke' })
  revoke(
    @CurrentCaller() caller: AppCaller,
    @Param('voucherId', new ResourceIdPipe('Voucher')) voucherId: string,
  ): Promise<VoucherView> {
    return this.vouchers.revoke(caller.application.id, voucherId);
  }
}
