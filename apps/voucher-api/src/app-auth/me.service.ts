import { Injectable } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
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

export class ApplicationFeaturesView {
  @ApiProperty()
  vouchers: boolean;
}

export class ApplicationSelfView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: ['active', 'disabled'] })
  status: string;

  @ApiProperty({ type: [String], example: ['*'] })
  allowed_origins: string[];

  @ApiProperty({ type: ApplicationFeaturesView })
  features: ApplicationFeaturesView;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;

  @ApiProperty({ type: TokenSelfView, description: 'The calling token' })
  token: TokenSelfView;
}

@Injectable()
export class MeService {
  /** The application that owns the token, as the guard loaded it, plus the calling token's grants. */
  selfCheck(caller: AppCaller): ApplicationSelfView {
    const app = caller.application;
    return {
      id: app.id,
      name: app.name,
      description: app.description,
      status: app.status,
      allowed_origins: app.allowedOrigins,
      features: app.features,
      created_at: app.createdAt.toISOString(),
      updated_at: app.updatedAt.toISOString(),
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
