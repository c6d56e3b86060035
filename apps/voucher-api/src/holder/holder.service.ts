import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import type { VoucherStatus } from '../vouchers/entities/voucher.entity';
import { VoucherCredentials } from '../vouchers/voucher-credentials';
import { AuthorizationView } from './dto/authorization.view';
import { HolderVoucherView } from './dto/holder-voucher.view';
import { Page, PageQueryDto } from '../pagination/page-query.dto';

interface HolderVoucherRow {
  id: string;
  application_id: string;
  application_name: string;
  template_id: string;
  template_name: string;
  type: string;
  issuer_name: string;
  fulfiller_name: string;
  description: string | null;
  cover_file_id: string | null;
  status: VoucherStatus;
  send_id: string | null;
  valid_from: Date;
  valid_to: Date;
  issued_at: Date;
  redeemed_at: Date | null;
  qr_token_enc: string;
  code_enc: string;
  total: string;
}

interface AuthorizationRow {
  application_id: string;
  application_name: string;
  user_id: string;
  created_at: Date;
}

function toAuthorizationView(row: AuthorizationRow): AuthorizationView {
  return {
    application_id: row.application_id,
    application_name: row.application_name,
    user_id: row.user_id,
    created_at: row.created_at.toISOString(),
  };
}

/** The end user's own side: their vouchers with credentials, and their consent to applications. */
@Injectable()
export class HolderService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credentials: VoucherCredentials,
  ) {}

  async vouchers(userId: string, query: PageQueryDto): Promise<Page<HolderVoucherView>> {
    const rows: HolderVoucherRow[] = await this.dataSource.query(
      `SELECT v.id, v.application_id, a.name AS application_name, v.template_id, t.name AS template_name, t.type,
              t.issuer_name, t.fulfiller_name, t.description, t.cover_file_id, v.status, v.send_id,
              v.valid_from, v.valid_to, v.issued_at, v.redeemed_at, v.qr_token_enc, v.code_enc,
              count(*) OVER () AS total
         FROM vouchers v
         JOIN templates t ON t.id = v.template_id
         JOIN applications a ON a.id = v.application_id
        WHERE v.recipient_user_id = $1
        ORDER BY v.issued_at DESC, v.id DESC
        LIMIT $2 OFFSET $3`,
      [userId, query.limit, (query.page - 1) * query.limit],
    );
    const total = rows.length > 0 ? Number(rows[0].total) : await this.countVouchers(userId);
    return { items: rows.map((row) => this.toHolderVoucher(row)), page: query.page, limit: query.limit, total };
  }

  async authorizations(userId: string): Promise<AuthorizationView[]> {
    const rows: AuthorizationRow[] = await this.dataSource.query(
      `SELECT z.application_id, a.name AS application_name, z.user_id, z.created_at
         FROM authorizations z JOIN applications a ON a.id = z.application_id
        WHERE z.user_id = $1
        ORDER BY z.created_at, z.application_id`,
      [userId],
    );
    return rows.map(toAuthorizationView);
  }

  /** Consent is a set membership: authorising twice keeps the first record and answers with it. */
  authorize(userId: string, applicationId: string): Promise<AuthorizationView> {
    return this.dataSource.transaction(async (manager) => {
      const [application]: { id: string }[] = await manager.query(`SELECT id FROM applications WHERE id = $1`, [
        applicationId,
      ]);
      if (!application) throw ApiError.notFound('Application');
      await manager.query(
        `INSERT INTO authorizations (user_id, application_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [userId, applicationId],
      );
      return this.requireAuthorization(manager, userId, applicationId);
    });
  }

  revokeAuthorization(userId: string, applicationId: string): Promise<AuthorizationView> {
    return this.dataSource.transaction(async (manager) => {
      const authorization = await this.requireAuthorization(manager, userId, applicationId);
      await manager.query(`DELETE FROM authorizations WHERE user_id = $1 AND application_id = $2`, [
        userId,
        applicationId,
      ]);
      return authorization;
    });
  }

  private async requireAuthorization(
    manager: EntityManager,
    userId: string,
    applicationId: string,
  ): Promise<AuthorizationView> {
    const [row]: AuthorizationRow[] = await manager.query(
      `SELECT z.application_id, a.name AS application_name, z.user_id, z.created_at
         FROM authorizations z JOIN applications a ON a.id = z.application_id
        WHERE z.user_id = $1 AND z.application_id = $2`,
      [userId, applicationId],
    );
    if (!row) throw ApiError.notFound('Authorization');
    return toAuthorizationView(row);
  }

  private async countVouchers(userId: string): Promise<number> {
    const [row]: { total: string }[] = await this.dataSource.query(
      `SELECT count(*) AS total FROM vouchers WHERE recipient_user_id = $1`,
      [userId],
    );
    return Number(row.total);
  }

  /**
   * A voucher past its validity shows as expired even before a verify marks it so. Credentials are
   * shown only while the voucher can still be redeemed: a redeemed or expired voucher's code may
   * already belong to another live voucher of the same application.
   */
  private toHolderVoucher(row: HolderVoucherRow): HolderVoucherView {
    const status: VoucherStatus =
      row.status === 'available' && row.valid_to.getTime() <= Date.now() ? 'expired' : row.status;
    const live = status === 'available';
    return {
      id: row.id,
      application_id: row.application_id,
      application_name: row.application_name,
      template_id: row.template_id,
      template: {
        name: row.template_name,
        type: row.type,
        issuer_name: row.issuer_name,
        fulfiller_name: row.fulfiller_name,
        description: row.description,
        cover_file_id: row.cover_file_id,
      },
      status,
      send_id: row.send_id,
      valid_from: row.valid_from.toISOString(),
      valid_to: row.valid_to.toISOString(),
      issued_at: row.issued_at.toISOString(),
      redeemed_at: row.redeemed_at?.toISOString() ?? null,
      qr_token: live ? this.credentials.decrypt(row.id, 'qr_token', row.qr_token_enc) : null,
      redeem_code: live ? this.credentials.decrypt(row.id, 'redeem_code', row.code_enc) : null,
    };
  }
}
