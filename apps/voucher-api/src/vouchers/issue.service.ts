import { Injectable } from '@nestjs/common';
import { ApiError, RenderedBody } from '@app/envelope';
import { claimCtes, IdempotentCall } from '@app/idempotency';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { isUuid } from '../app-auth/resource-id.pipe';
import type { Template } from '../templates/entities/template.entity';
import { consumePerUserQuota, remainingStock } from '../templates/template-stock';
import type { IssueDto } from './dto/issue.dto';
import { VoucherFactory } from './voucher.factory';
import { IssueResult, toVoucherView } from './voucher.view';

type IssuingTemplate = Pick<
  Template,
  | 'id'
  | 'applicationId'
  | 'status'
  | 'validFrom'
  | 'validTo'
  | 'daysAfterClaim'
  | 'perUserLimit'
  | 'issueLimit'
  | 'issuedCount'
  | 'allocatedCount'
>;

interface IssueChecks extends IssuingTemplate {
  claimHeld: boolean;
  claimed: boolean;
  recipientAuthorized: boolean;
  duplicate: boolean;
}

/**
 * The idempotency claim, and everything an issue checks before it writes, in one round trip: the
 * template, the recipient rule (consent, or already a holder of the application's vouchers) and a
 * reused external_issue_id, read without locks. The template columns are null when it does not exist.
 * $1 application id, $2 template id, $3 recipient, $4 external issue id, $5… the claim's parameters.
 */
const CLAIM_AND_CHECK = namedStatement(
  'voucher_issue_claim_and_checks',
  `WITH ${claimCtes(5)}
   SELECT idempotency_lock.held AS "claimHeld", EXISTS (SELECT 1 FROM idempotency_claim) AS claimed, checks.*
     FROM idempotency_lock
     LEFT JOIN (
       SELECT t.id, t.application_id AS "applicationId", t.status, t.valid_from AS "validFrom", t.valid_to AS "validTo",
              t.days_after_claim AS "daysAfterClaim", t.per_user_limit AS "perUserLimit", t.issue_limit AS "issueLimit",
              t.issued_count AS "issuedCount", t.allocated_count AS "allocatedCount",
              (EXISTS (SELECT 1 FROM authorizations WHERE application_id = $1 AND user_id = $3)
               OR EXISTS (SELECT 1 FROM vouchers WHERE application_id = $1 AND recipient_user_id = $3))
                AS "recipientAuthorized",
              EXISTS (SELECT 1 FROM vouchers WHERE application_id = $1 AND external_issue_id = $4) AS duplicate
         FROM templates t WHERE t.id = $2::uuid AND t.application_id = $1) checks ON true`,
);

/** A unique or check violation of the given constraint, whether raised through TypeORM or pg directly. */
function violates(error: unknown, constraint: string): boolean {
  const driverError = (error instanceof QueryFailedError ? error.driverError : error) as {
    code?: string;
    constraint?: string;
  };
  return (driverError?.code === '23505' || driverError?.code === '23514') && driverError.constraint === constraint;
}

@Injectable()
export class IssueService {
  constructor(
    private readonly dataSource: DataSource,
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
      return await this.dataSource.transaction(async (manager) => {
        const template = await this.checkedTemplate(manager, applicationId, body, call);
        if (!(await consumePerUserQuota(manager, template.id, body.recipient_user_id, template.perUserLimit))) {
          throw ApiError.conflict(
            'PER_USER_LIMIT_REACHED',
            `The recipient already holds the template's limit of ${template.perUserLimit} voucher(s)`,
          );
        }
        const voucher = await this.factory.create(manager, template, body.recipient_user_id, {
          externalIssueId: body.external_issue_id,
        });
        const result: IssueResult = { issuanceId: voucher.issuanceId, voucher: toVoucherView(voucher) };
        return call.complete(manager, result);
      });
    } catch (error) {
      if (violates(error, 'vouchers_external_issue_unique')) throw this.duplicateIssue();
      if (violates(error, 'templates_stock_within_limit')) throw this.noStock();
      throw error;
    }
  }

  /** Claims the key, then answers the first check the request fails, in the order the API documents. */
  private async checkedTemplate(
    manager: EntityManager,
    applicationId: string,
    body: IssueDto,
    call: IdempotentCall,
  ): Promise<IssuingTemplate> {
    if (!isUuid(body.template_id)) {
      await call.begin(manager);
      throw ApiError.notFound('Template');
    }
    const { rows } = await runNamed<IssueChecks>(manager, CLAIM_AND_CHECK, [
      applicationId,
      body.template_id.toLowerCase(),
      body.recipient_user_id,
      body.external_issue_id,
      ...call.claimParameters(),
    ]);
    await call.claimed(manager, rows[0].claimHeld, rows[0].claimed);
    const template = rows[0];
    if (template.id === null) throw ApiError.notFound('Template');
    if (template.status !== 'active') {
      throw ApiError.conflict('TEMPLATE_NOT_ACTIVE', `The template is ${template.status}; only active templates issue`);
    }
    if (template.validTo && template.validTo.getTime() <= Date.now()) {
      throw ApiError.conflict('TEMPLATE_NOT_ACTIVE', "The template's validity has ended");
    }
    if (!template.recipientAuthorized) {
      throw new ApiError(
        403,
        'RECIPIENT_NOT_AUTHORIZED',
        'The recipient has not authorised this application and holds none of its vouchers',
      );
    }
    if (template.duplicate) throw this.duplicateIssue();
    // A cheap early answer when the stock is visibly gone; the conditional UPDATE at the end decides.
    if (remainingStock(template) === 0) throw this.noStock();
    return template;
  }

  private noStock(): ApiError {
    return ApiError.conflict('ISSUE_LIMIT_REACHED', 'The template has no stock left to issue');
  }

  private duplicateIssue(): ApiError {
    return ApiError.conflict('DUPLICATE_EXTERNAL_ID', 'external_issue_id is already used in this application');
  }
}
