import type { Request } from 'express';
import type { Account } from './account-jwt';

/** A caller authenticated by a service-specific token (application token, bot token). */
export interface Principal {
  /** The tenant every read and write of the call is confined to (application id, bot id). */
  tenantId: string;
  permissions: readonly string[];
}

type AuthenticatedRequest = Request & { account?: Account; principal?: Principal };

export function setAccount(req: Request, account: Account): void {
  (req as AuthenticatedRequest).account = account;
}

export function accountOf(req: Request): Account | undefined {
  return (req as AuthenticatedRequest).account;
}

export function setPrincipal(req: Request, principal: Principal): void {
  (req as AuthenticatedRequest).principal = principal;
}

export function principalOf(req: Request): Principal | undefined {
  return (req as AuthenticatedRequest).principal;
}

/** Scope for per-tenant records (idempotency keys, rate limits): the token's tenant, else the account. */
export function tenantOf(req: Request): string | undefined {
  return principalOf(req)?.tenantId ?? accountOf(req)?.id;
}
