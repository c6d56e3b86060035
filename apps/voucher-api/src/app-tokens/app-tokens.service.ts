import { Injectable } from '@nestjs/common';
import { displayPrefix, generateSecretToken, hashSecretToken } from '@app/auth';
import { Database } from '@app/platform';
import { AppTokenCache } from '../applications/app-token-cache';
import { ApplicationsService } from '../applications/applications.service';
import { AppTokensStore } from './app-tokens.store';
import { AppTokenView, CreatedAppTokenView, toAppTokenView } from './dto/app-token.view';
import { VOUCHER_PERMISSIONS } from '../applications/runtime-route.options';
import { CreateAppTokenDto } from './dto/create-app-token.dto';
import { VoucherErrors } from '../voucher-errors';

@Injectable()
export class AppTokensService {
  constructor(
    private readonly database: Database,
    private readonly applications: ApplicationsService,
    private readonly store: AppTokensStore,
    private readonly tokenCache: AppTokenCache,
  ) {}

  async list(ownerId: string, applicationId: string): Promise<AppTokenView[]> {
    await this.applications.requireOwned(this.database, ownerId, applicationId);
    return (await this.store.list(applicationId)).map(toAppTokenView);
  }

  create(ownerId: string, applicationId: string, dto: CreateAppTokenDto): Promise<CreatedAppTokenView> {
    const expiresAt = dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw VoucherErrors.invalid('expires_at must lie in the future', [
        { field: 'expires_at', problem: 'must lie in the future' },
      ]);
    }
    return this.database.transaction(async (tx) => {
      await this.applications.requireOwned(tx, ownerId, applicationId);
      const secret = generateSecretToken('sop_');
      const token = await this.store.insert(tx, {
        applicationId,
        name: dto.name,
        tokenHash: hashSecretToken(secret),
        prefix: displayPrefix(secret),
        // Stored in the canonical order so that list views do not depend on how the request ordered them.
        permissions: VOUCHER_PERMISSIONS.filter((permission) => dto.permissions.includes(permission)),
        expiresAt,
      });
      return { ...toAppTokenView(token), token: secret };
    });
  }

  /**
   * Revocation is a committed timestamp; the token's cached look-ups are dropped after the commit on
   * every instance, so the very next call with the token fails. Revoking twice keeps the first timestamp.
   */
  async revoke(ownerId: string, applicationId: string, tokenId: string): Promise<AppTokenView> {
    const view = await this.database.transaction(async (tx) => {
      await this.applications.requireOwned(tx, ownerId, applicationId);
      const token = await this.store.revoke(tx, applicationId, tokenId);
      if (!token) throw VoucherErrors.notFound('Token');
      return toAppTokenView(token);
    });
    this.tokenCache.tokenChanged(tokenId);
    return view;
  }
}
