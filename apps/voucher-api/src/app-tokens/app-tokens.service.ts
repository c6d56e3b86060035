import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { displayPrefix, generateSecretToken, hashSecretToken } from '@app/auth';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { ApplicationsService } from '../applications/applications.service';
import { AppToken } from '../applications/entities/app-token.entity';
import { AppTokenView, CreatedAppTokenView, toAppTokenView } from './dto/app-token.view';
import { APP_TOKEN_PERMISSIONS, CreateAppTokenDto } from './dto/create-app-token.dto';

@Injectable()
export class AppTokensService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
  ) {}

  async list(ownerId: string, applicationId: string): Promise<AppTokenView[]> {
    await this.applications.requireOwned(this.dataSource.manager, ownerId, applicationId);
    const tokens = await this.dataSource.manager.find(AppToken, {
      where: { applicationId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return tokens.map(toAppTokenView);
  }

  create(ownerId: string, applicationId: string, dto: CreateAppTokenDto): Promise<CreatedAppTokenView> {
    const expiresAt = dto.expires_at ? new Date(dto.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw ApiError.badRequest('expires_at must lie in the future', [
        { field: 'expires_at', problem: 'must lie in the future' },
      ]);
    }
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId);
      const secret = generateSecretToken('sop_');
      const token = await manager.save(
        manager.create(AppToken, {
          applicationId,
          name: dto.name,
          tokenHash: hashSecretToken(secret),
          prefix: displayPrefix(secret),
          // Stored in the canonical order so that list views do not depend on how the request ordered them.
          permissions: APP_TOKEN_PERMISSIONS.filter((permission) => dto.permissions.includes(permission)),
          expiresAt,
        }),
      );
      return { ...toAppTokenView(token), token: secret };
    });
  }

  /**
   * Revocation is a committed timestamp that the token guard reads on every request, so the very next
   * call with the token fails. Revoking twice keeps the first timestamp.
   */
  revoke(ownerId: string, applicationId: string, tokenId: string): Promise<AppTokenView> {
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId);
      await manager
        .createQueryBuilder()
        .update(AppToken)
        .set({ revokedAt: () => 'now()' })
        .where('id = :tokenId AND application_id = :applicationId AND revoked_at IS NULL', {
          tokenId,
          applicationId,
        })
        .execute();
      const token = await manager.findOneBy(AppToken, { id: tokenId, applicationId });
      if (!token) throw ApiError.notFound('Token');
      return toAppTokenView(token);
    });
  }
}
