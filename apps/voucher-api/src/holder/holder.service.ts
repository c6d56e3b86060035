import { Injectable } from '@nestjs/common';
import { ApplicationsService } from '../applications/applications.service';
import { AuthorizationRow, AuthorizationsStore } from '../authorizations/authorizations.store';
import { Database, PageQueryDto, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import { VoucherErrors } from '../voucher-errors';
import type { VoucherStatus } from '../vouchers/entities/voucher.entity';
import { VoucherCredentials } from '../vouchers/voucher-credentials';
import { HolderVoucherRow, VouchersStore } from '../vouchers/vouchers.store';
import { AuthorizationView } from './dto/authorization.view';
import { HolderVoucherPage, HolderVoucherView } from './dto/holder-voucher.view';

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
    private readonly database: Database,
    private readonly voucherStore: VouchersStore,
    private readonly consents: AuthorizationsStore,
    private readonly applications: ApplicationsService,
    private readonly credentials: VoucherCredentials,
  ) {}

  async vouchers(userId: string, query: PageQueryDto): Promise<HolderVoucherPage> {
    const window = pageWindow(query);
    const { rows, total } = await this.voucherStore.listForHolder(userId, window.pageSize, window.offset);
    return pageAnswer(
      rows.map((row) => this.toHolderVoucher(row)),
      total,
      window,
    );
  }

  async authorizations(userId: string): Promise<AuthorizationView[]> {
    return (await this.consents.list(userId)).map(toAuthorizationView);
  }

  /** Consent is a set membership: authorising twice keeps the first record and answers with it. */
  authorize(userId: string, applicationId: string): Promise<AuthorizationView> {
    return this.database.transaction(async (tx) => {
      await this.applications.require(tx, applicationId);
      await this.consents.insert(tx, userId, applicationId);
      return this.requireAuthorization(tx, userId, applicationId);
    });
  }

  revokeAuthorization(userId: string, applicationId: string): Promise<AuthorizationView> {
    return this.database.transaction(async (tx) => {
      const authorization = await this.requireAuthorization(tx, userId, applicationId);
      await this.consents.delete(tx, userId, applicationId);
      return authorization;
    });
  }

  private async requireAuthorization(tx: SqlTarget, userId: string, applicationId: string): Promise<AuthorizationView> {
    const row = await this.consents.find(tx, userId, applicationId);
    if (!row) throw VoucherErrors.notFound('Authorization');
    return toAuthorizationView(row);
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
