import { Injectable } from '@nestjs/common';
import type { ApiError, RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { Database, SqlTarget, violates } from '@app/platform';
import { isUuid } from '../resource-id.pipe';
import { assertTemplateIssues } from '../templates/template-lifecycle';
import { remainingStock } from '../templates/template-stock';
import { TemplatesService } from '../templates/templates.service';
import { VoucherErrors } from '../voucher-errors';
import type { IssueDto } from './dto/issue.dto';
import { VoucherFactory } from './voucher.factory';
import { IssueResult, toVoucherView } from './voucher.view';
import { IssuingTemplate, templateFound, VouchersStore } from './vouchers.store';

@Injectable()
export class IssueService {
  constructor(
    private readonly database: Database,
    private readonly vouchers: VouchersStore,
    private readonly templates: TemplatesService,
    private readonly factory: VoucherFactory,
  ) {}

  /**
   * One transaction: checks, per-user quota, voucher and idempotency record commit together, so a
   * failure anywhere gives back the quota it took. The template's issued_count is counted by the
   * database at COMMIT (migration CountIssuesAtCommit): its row lock, which queues every other issue
   * of the template, lasts only for the commit itself, and an overdraw fails the commit on the
   * templates_stock_within_limit check. The per-user row is locked first, the template row last.
   */
  async issue(applicationId: string, body: IssueDto, call: IdempotentCall): Promise<RenderedBody> {
    try {
      return await this.database.transaction(async (tx) => {
        const template = await this.checkedTemplate(tx, applicationId, body, call);
        await this.templates.takePerUserQuota(tx, template, body.recipient_user_id);
        const voucher = await this.factory.create(tx, template, body.recipient_user_id, {
          externalIssueId: body.external_issue_id,
        });
        const result: IssueResult = { issuanceId: voucher.issuanceId, voucher: toVoucherView(voucher) };
        return call.complete(tx, result);
      });
    } catch (error) {
      if (violates(error, 'vouchers_external_issue_unique')) throw this.duplicateIssue();
      if (violates(error, 'templates_stock_within_limit')) throw this.noStock();
      throw error;
    }
  }

  /** Claims the key, then answers the first check the request fails, in the order the API documents. */
  private async checkedTemplate(
    tx: SqlTarget,
    applicationId: string,
    body: IssueDto,
    call: IdempotentCall,
  ): Promise<IssuingTemplate> {
    if (!isUuid(body.template_id)) {
      await call.begin(tx);
      throw VoucherErrors.notFound('Template');
    }
    const checks = await this.vouchers.claimAndCheckIssue(tx, {
      ...call.claimParameters(),
      applicationId,
      templateId: body.template_id.toLowerCase(),
      recipient: body.recipient_user_id,
      externalIssueId: body.external_issue_id,
    });
    await call.claimed(tx, checks.claimHeld, checks.claimed);
    if (!templateFound(checks)) throw VoucherErrors.notFound('Template');
    assertTemplateIssues(checks);
    if (!checks.recipientAuthorized) {
      throw VoucherErrors.error(
        'RECIPIENT_NOT_AUTHORIZED',
        'The recipient has not authorised this application and holds none of its vouchers',
      );
    }
    if (checks.duplicate) throw this.duplicateIssue();
    // A cheap early answer when the stock is visibly gone; the count at commit decides.
    if (remainingStock(checks) === 0) throw this.noStock();
    return checks;
  }

  private noStock(): ApiError {
    return VoucherErrors.error('ISSUE_LIMIT_REACHED', 'The template has no stock left to issue');
  }

  private duplicateIssue(): ApiError {
    return VoucherErrors.error('DUPLICATE_EXTERNAL_ID', 'external_issue_id is already used in this application');
  }
}
