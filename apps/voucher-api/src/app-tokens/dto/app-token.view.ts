import type { AppToken } from '../../applications/entities/app-token.entity';

export interface AppTokenView {
  id: string;
  application_id: string;
  name: string;
  prefix: string;
  permissions: string[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** The plaintext secret appears in this shape only, in the response that created it. */
export interface CreatedAppTokenView extends AppTokenView {
  token: string;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function toAppTokenView(token: AppToken): AppTokenView {
  return {
    id: token.id,
    application_id: token.applicationId,
    name: token.name,
    prefix: token.prefix,
    permissions: token.permissions,
    expires_at: iso(token.expiresAt),
    last_used_at: iso(token.lastUsedAt),
    revoked_at: iso(token.revokedAt),
    created_at: token.createdAt.toISOString(),
  };
}
