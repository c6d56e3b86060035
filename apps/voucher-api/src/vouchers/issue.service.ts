import { Injectable } from '@nestjs/common';
import { ApiError, RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { isUuid } from '../app-auth/resource-id.pipe';
import { Template } from '../templates/entities/template.entity';
import { consumePerUserQuota, consumeTemplateStock } from '../templates/template-stock';
import type { IssueDto } from './dto/issue.dto';
import { VoucherFactory } from './voucher.factory';
import { IssueResult, toVoucherView } from './voucher.view';

function isDuplicateIssue(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === 'vouchers_external_issue_unique';
}

@Injectable()
export class IssueService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly factory: VoucherFactory,
  ) {}

  /**
   * One transaction: checks, per-user quota, stock, voucher and the idempotency record commit together,
   * so a failure anywhere gives back the quota and the stock it took.
   */
  async issue(applicationId: string, body: IssueDto, call: IdempotentCall): Promise<RenderedBody> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        await call.begin(manager);
        const template = await this.activeTemplate(manager, applicationId, body.template_id);
        await this.assertRecipientAuthorized(manager, applicationId, body.recipient_user_id);
        const duplicate: unknown[] = await manager.query(
          `SELECT 1 FROM vouchers WHERE application_id = $1 AND external_issue_id = $2`,
          [applicationId, body.external_issue_id],
        );
        if (duplicate.length > 0) throw this.duplicateIssue();
        // Per-user row first, template row second: every issue locks in this order, so they cannot deadlock.
        if (!(await consumePerUserQuota(manager, template.id, body.recipient_user_id, template.perUserLimit))) {
          throw ApiError.conflict(
            'PER_USER_LIMIT_REACHED',
            `The recipient already holds the template's limit of ${template.perUserLimit} voucher(s)`,
          );
        }
        if (!(await consumeTemplateStock(manager, template.id, 1, 'issued'))) {
          throw ApiError.conflict('ISSUE_LIMIT_REACHED', 'The template has no stock left to issue');
        }
        const voucher = await this.factory.create(manager, template, body.recipient_user_id, {
          externalIssueId: body.external_issue_id,
        });
        const result: IssueResult = { issuanceId: voucher.issuanceId, voucher: toVoucherView(voucher) };
        return call.complete(manager, result);
      });
    } catch (error) {
      if (isDuplicateIssue(error)) throw this.duplicateIssue();
      throw error;
    }
  }

  private async activeTemplate(manager: EntityManager, applicationId: string, templateId: string): Promise<Template> {
    const template = isUuid(templateId)
      ? await manager.findOneBy(Template, { id: templateId.toLowerCase(), applicationId })
      : null;
    if (!template) throw ApiError.notFound('Template');
    if (template.status !== 'active') {
      throw ApiError.conflict('TEMPLATE_NOT_ACTIVE', `The template is ${template.status}; only active templates issue`);
    }
    if (template.validTo && template.validTo.getTime() <= Date.now()) {
      throw ApiError.conflict('TEMPLATE_NOT_ACTIVE', "The template's validity has ended");
    }
    return template;
  }

  /** The recipient rule: the user consented to this application, or already holds one of its vouchers. */
  private async assertRecipientAuthorized(
    manager: EntityManager,
    applicationId: string,
    userId: string,
  ): Promise<void> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM authorizations WHERE application_id = $1 AND user_id = $2
       UNION ALL
       SELECT 1 FROM vouchers WHERE application_id = $1 AND recipient_user_id = $2
       LIMIT 1`,
      [applicationId, userId],
    );
    if (rows.length === 0) {
      throw new ApiError(
        403,
        'RECIPIENT_NOT_AUTHORIZED',
        'The recipient has not authorised this application and holds none of its vouchers',
      );
    }
  }

  private duplicateIssue(): ApiError {
    return ApiError.conflict('DUPLICATE_EXTERNAL_ID', 'external_issue_id is already used in this application');
  }
}
