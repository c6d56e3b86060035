import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource } from 'typeorm';
import type { AppCaller } from './app-caller';

interface TokenRow {
  token_id: string;
  token_hash: string;
  token_name: string;
  prefix: string;
  permissions: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
  application_id: string;
  name: string;
  description: string | null;
  status: 'active' | 'disabled';
  allowed_origins: string[];
  features: { vouchers?: boolean } | null;
  created_at: Date;
  updated_at: Date;
}

/** The token and the application it is bound to, in one indexed look-up by the token's hash. */
const TOKEN_BY_HASH = namedStatement(
  'app_token_by_hash',
  `SELECT t.id AS token_id, t.token_hash, t.name AS token_name, t.prefix, t.permissions, t.expires_at, t.revoked_at,
          (t.expires_at IS NOT NULL AND t.expires_at <= now()) AS expired,
          a.id AS application_id, a.name, a.description, a.status, a.allowed_origins, a.features,
          a.created_at, a.updated_at
     FROM app_tokens t JOIN applications a ON a.id = t.application_id
    WHERE t.token_hash = $1`,
);

/** last_used_at is informational: writing it once a minute per token keeps hot paths free of row contention. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

@Injectable()
export class AppTokenAuthenticator {
  private readonly logger = new Logger('AppTokenAuthenticator');
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(private readonly dataSource: DataSource) {}

  /** Resolves an `sop_` token to its caller, or throws 401. The application's own state is checked apart. */
  async authenticate(token: string): Promise<AppCaller> {
    const tokenHash = hashSecretToken(token);
    const {
      rows: [row],
    } = await runNamed<TokenRow>(this.dataSource, TOKEN_BY_HASH, [tokenHash]);
    if (!row || !constantTimeEqual(row.token_hash, tokenHash)) {
      throw new ApiError(401, undefined, 'Application token is invalid');
    }
    if (row.revoked_at) throw new ApiError(401, undefined, 'Application token has been revoked');
    if (row.expired) throw new ApiError(401, undefined, 'Application token has expired');
    this.touch(row.token_id);
    return {
      tokenId: row.token_id,
      tokenName: row.token_name,
      tokenPrefix: row.prefix,
      tokenExpiresAt: row.expires_at,
      permissions: row.permissions,
      application: {
        id: row.application_id,
        name: row.name,
        description: row.description,
        status: row.status,
        allowedOrigins: row.allowed_origins,
        features: { vouchers: row.features?.vouchers === true },
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      },
    };
  }

  private touch(tokenId: string): void {
    const now = Date.now();
    const last = this.lastUsedWrites.get(tokenId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(tokenId, now);
    if (this.lastUsedWrites.size > 10_000) this.lastUsedWrites.clear();
    this.dataSource
      .query(
        `UPDATE app_tokens SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [tokenId],
      )
      .catch((error: Error) => this.logger.warn(`could not record token use: ${error.message}`));
  }
}
