import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AppCaller } from '../applications/app-caller';
import { CurrentCaller } from './current-caller.decorator';
import { ApplicationSelfView } from './dto/application-self.view';
import { MeService } from './me.service';
import { RuntimeRoute, RuntimeSuccess } from './runtime-route.decorator';

@ApiTags('runtime')
@Controller('api/v1/open-platform')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get('me')
  @RuntimeRoute({ permission: 'vouchers:read', rateLimit: 'me' })
  @ApiOperation({ summary: 'Self-check: the application that owns the token, and the token grants' })
  @RuntimeSuccess(
    200,
    'The application (id, name, status, allowed_origins, features, …) and `token` (id, prefix, permissions, expires_at)',
    ApplicationSelfView,
  )
  selfCheck(@CurrentCaller() caller: AppCaller): ApplicationSelfView {
    return this.me.selfCheck(caller);
  }
}
