import { Injectable } from '@nestjs/common';
import { toApplicationView } from '../applications/dto/application.view';
import type { AppCaller } from '../applications/app-caller';
import { ApplicationSelfView } from './dto/application-self.view';

@Injectable()
export class MeService {
  /** The application that owns the token, as the guard loaded it, plus the calling token's grants. */
  selfCheck(caller: AppCaller): ApplicationSelfView {
    return {
      ...toApplicationView(caller.application),
      token: {
        id: caller.tokenId,
        name: caller.tokenName,
        prefix: caller.tokenPrefix,
        permissions: caller.permissions,
        expires_at: caller.tokenExpiresAt?.toISOString() ?? null,
      },
    };
  }
}
