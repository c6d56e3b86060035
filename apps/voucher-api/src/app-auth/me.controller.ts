import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { AppCaller } from './app-caller';
import { CurrentCaller } from './current-caller.decorator';
import { ApplicationSelfView, MeService } from './me.service';
import { RuntimeRoute } from './runtime-route.decorator';

@ApiTags('runtime')
@Controller('api/v1/open-platform')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get('me')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'me' })
  selfCheck(@CurrentCaller() caller: AppCaller): ApplicationSelfView {
    return this.me.selfCheck(caller);
  }
}
