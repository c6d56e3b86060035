import { Injectable, Logger } from '@nestjs/common';
import { constantTimeEqual, hashSecretToken } from '@app/auth';
import { LRUCache } from 'lru-cache';
import { vouchersFeatureOpen } from '../applications/application-rules';
import { AppTokensStore, TokenWithApplication } from '../app-tokens/app-tokens.store';
import { VoucherErrors } from '../voucher-errors';
import type { AppCaller } from '../applications/app-caller';
import { AppTokenCache } from '../applications/app-token-cache';

/** last_used_at is informational: writing it once a minute per token keeps hot paths free of row contention. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Tokens whose last write is remembered; one forgotten early costs one more write, nothing else. */
const MAX_REMEMBERED_WRITES = 10_000;

@Injectable()
export class AppTokenAuthenticator {
  private readonly logger = new Logger('AppTokenAuthenticator');
  /** Tokens whose last_used_at this process wrote within the interval. */
  private readonly lastUsedWrites = new LRUCache<string, true>({
    max: MAX_REMEMBERED_WRITES,
    ttl: LAST_USED_WRITE_INTERVAL_MS,
  });

  constructor(
    private readonly tokens: AppTokensStore,
    private readonly cache: AppTokenCache,
  ) {}

  /** Resolves an `sop_` token to its caller, or throws 401. The application's own state is checked apart. */
  async authenticate(token: string): Promise<AppCaller> {
    const tokenHash = hashSecretToken(token);
    const caller = this.cache.get(tokenHash) ?? (await this.load(tokenHash));
    if (caller.tokenExpiresAt && caller.tokenExpiresAt.getTime() <= Date.now()) {
      throw VoucherErrors.error('UNAUTHORIZED', 'Application token has expired');
    }
    this.touch(caller.tokenId);
    return caller;
  }

  private async load(tokenHash: string): Promise<AppCaller> {
    const startedAt = this.cache.readStarted();
    const row = await this.tokens.findByHash(tokenHash);
    if (!row || !constantTimeEqual(row.token_hash, tokenHash)) {
      throw VoucherErrors.error('UNAUTHORIZED', 'Application token is invalid');
    }
    if (row.revoked_at) throw VoucherErrors.error('UNAUTHORIZED', 'Application token has been revoked');
    if (row.expired) throw VoucherErrors.error('UNAUTHORIZED', 'Application token has expired');
    const caller = toCaller(row);
    this.cache.putCaller(tokenHash, caller, startedAt);
    return caller;
  }

  private touch(tokenId: string): void {
    if (this.lastUsedWrites.has(tokenId)) return;
    this.lastUsedWrites.set(tokenId, true);
    this.tokens
      .recordUse(tokenId)
      .catch((error: Error) => this.logger.warn(`could not record token use: ${error.message}`));
  }
}

function toCaller(row: TokenWithApplication): AppCaller {
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
      features: { vouchers: vouchersFeatureOpen(row.features) },
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    },
  };
}
