import { Injectable } from '@nestjs/common';
import type { AppCaller } from './app-caller';

export interface ApplicationSelfView {
  id: string;
  name: string;
  description: string | null;
  status: string;
  allowed_origins: string[];
  features: { vouchers: boolean };
  created_at: string;
  updated_at: string;
  token: { id: string; name: string; prefix: string; permissions: string[]; expires_at: string | null };
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
