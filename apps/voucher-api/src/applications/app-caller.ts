import type { Request } from 'express';
import type { ApplicationFeatures, ApplicationStatus } from './entities/application.entity';
import type { VoucherPermission } from './runtime-route.options';

/** The application token that authenticated a runtime call, and the application it is bound to. */
export interface AppCaller {
  tokenId: string;
  tokenName: string;
  tokenPrefix: string;
  tokenExpiresAt: Date | null;
  permissions: VoucherPermission[];
  application: {
    id: string;
    name: string;
    description: string | null;
    status: ApplicationStatus;
    allowedOrigins: string[];
    features: ApplicationFeatures;
    createdAt: Date;
    updatedAt: Date;
  };
}

type RequestWithCaller = Request & { appCaller?: AppCaller };

export function setAppCaller(req: Request, caller: AppCaller): void {
  (req as RequestWithCaller).appCaller = caller;
}

export function appCallerOf(req: Request): AppCaller | undefined {
  return (req as RequestWithCaller).appCaller;
}
