import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ApplicationView, toApplicationView } from '../applications/dto/application.view';
import type { AppCaller } from './app-caller';

export class TokenSelfView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'The start of the token, as list views show it' })
  prefix: string;

  @ApiProperty({ type: [String] })
  permissions: string[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at: string | null;
}

export class ApplicationSelfView extends ApplicationView {
  @ApiProperty({ type: TokenSelfView, description: 'The calling token' })
  token: TokenSelfView;
}

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
