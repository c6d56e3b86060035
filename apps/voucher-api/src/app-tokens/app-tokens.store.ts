import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { VoucherPermission } from '../applications/runtime-route.options';
import type { ApplicationStatus } from '../applications/entities/application.entity';
import { AppToken } from './entities/app-token.entity';

/** A token with the application it is bound to, as one runtime call needs them. */
export interface TokenWithApplication {
  token_id: string;
  token_hash: string;
  token_name: string;
  prefix: string;
  permissions: VoucherPermission[];
  expires_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
  application_id: string;
  name: string;
  description: string | null;
  status: ApplicationStatus;
  allowed_origins: string[];
  /** As stored: features written before a flag existed lack its key. */
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

export type NewAppToken = Pick<
  AppToken,
  'applicationId' | 'name' | 'tokenHash' | 'prefix' | 'permissions' | 'expiresAt'
>;

/** The owner of `app_tokens`: the runtime's look-up by hash and the console's token management. */
@Injectable()
export class AppTokensStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByHash(tokenHash: string): Promise<TokenWithApplication | undefined> {
    const { rows } = await runNamed<TokenWithApplication>(this.dataSource, TOKEN_BY_HASH, [tokenHash]);
    return rows[0];
  }

  /** Informational, so at most one write a minute per token; never on the caller's transaction. */
  async recordUse(tokenId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE app_tokens SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [tokenId],
    );
  }

  list(applicationId: string): Promise<AppToken[]> {
    return this.dataSource.manager.find(AppToken, { where: { applicationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  insert(manager: EntityManager, fields: NewAppToken): Promise<AppToken> {
    return manager.save(manager.create(AppToken, fields));
  }

  /** Sets revoked_at once (a second revoke keeps the first timestamp); null when no such token of the application. */
  async revoke(manager: EntityManager, applicationId: string, tokenId: string): Promise<AppToken | null> {
    await manager
      .createQueryBuilder()
      .update(AppToken)
      .set({ revokedAt: () => 'now()' })
      .where('id = :tokenId AND application_id = :applicationId AND revoked_at IS NULL', { tokenId, applicationId })
      .execute();
    return manager.findOneBy(AppToken, { id: tokenId, applicationId });
  }
}
