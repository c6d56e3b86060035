import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, PageWindow, runNamed } from '@app/platform';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { Template, TemplateStatus } from './entities/template.entity';

/**
 * Takes stock for an allocation with ONE conditional UPDATE: the row lock serialises concurrent
 * allocations, and the WHERE re-checks the latest counters, so stock is never overdrawn. Direct
 * issues count at commit instead (migration CountIssuesAtCommit).
 */
const CONSUME_ALLOCATED_STOCK = namedStatement(
  'template_consume_allocated_stock',
  `UPDATE templates SET allocated_count = allocated_count + $2, updated_at = now()
    WHERE id = $1 AND (issue_limit = 0 OR issue_limit - issued_count - allocated_count >= $2)`,
);

const CONSUME_PER_USER_QUOTA = namedStatement(
  'template_consume_per_user_quota',
  `INSERT INTO template_user_issues (template_id, user_id, issued_count) VALUES ($1, $2, 1)
   ON CONFLICT (template_id, user_id) DO UPDATE SET issued_count = template_user_issues.issued_count + 1
     WHERE template_user_issues.issued_count < $3
   RETURNING issued_count`,
);

/** A reused external_template_id within one application, however the insert or update reached the database. */
export function violatesExternalTemplateId(error: unknown): boolean {
  const driverError =
    error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : {};
  return driverError.code === '23505' && driverError.constraint === 'templates_external_id_unique';
}

/**
 * The owner of `templates` and `template_user_issues`: template rows, their stock and the per-user
 * issue counts. Stock rules live in the statements: remaining = issue_limit − issued − allocated.
 */
@Injectable()
export class TemplatesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  list(applicationId: string, status?: TemplateStatus): Promise<Template[]> {
    return this.dataSource.manager.find(Template, {
      where: { applicationId, ...(status ? { status } : {}) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** Staff view across applications, oldest submission first, and its count. */
  listForReview(status: TemplateStatus | undefined, page: PageWindow): Promise<[Template[], number]> {
    return this.dataSource.manager.findAndCount(Template, {
      where: status ? { status } : {},
      order: { submittedAt: { direction: 'ASC', nulls: 'LAST' }, createdAt: 'ASC', id: 'ASC' },
      skip: page.offset,
      take: page.pageSize,
    });
  }

  /**
   * The template, confined to `applicationId` unless it is null (staff, or a use case that reached the
   * template through a row of its own). `lock` holds its row until the transaction ends.
   */
  find(
    manager: EntityManager,
    applicationId: string | null,
    templateId: string,
    lock = false,
  ): Promise<Template | null> {
    return manager.findOne(Template, {
      where: applicationId ? { id: templateId, applicationId } : { id: templateId },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
  }

  /** A new, unsaved draft of the application with every optional field empty; fill it, then `save`. */
  newDraft(manager: EntityManager, applicationId: string): Template {
    return manager.create(Template, {
      applicationId,
      status: 'draft',
      perUserLimit: 1,
      description: null,
      coverFileId: null,
      usageRules: null,
      fulfillment: null,
      terms: null,
      rejectionReason: null,
      submittedAt: null,
      reviewedAt: null,
      issuedCount: 0,
      allocatedCount: 0,
    });
  }

  save(manager: EntityManager, template: Template): Promise<Template> {
    return manager.save(template);
  }

  /**
   * Takes `quantity` units of stock for an allocation; false, changing nothing, when not enough
   * remains. Call it as late in the use case's transaction as possible: its row lock queues every
   * other hand-out of the template until the commit.
   */
  async consumeAllocatedStock(manager: EntityManager, templateId: string, quantity: number): Promise<boolean> {
    if (!Number.isInteger(quantity) || quantity < 1) throw new Error(`invalid stock quantity ${quantity}`);
    const { rowCount } = await runNamed(manager, CONSUME_ALLOCATED_STOCK, [templateId, quantity]);
    return rowCount === 1;
  }

  /**
   * Counts one more voucher of the template for the user, unless that would pass the template's
   * per_user_limit. The upsert's row lock makes concurrent issues to one user queue up and re-check.
   */
  async consumePerUserQuota(
    manager: EntityManager,
    templateId: string,
    userId: string,
    perUserLimit: number,
  ): Promise<boolean> {
    const { rowCount } = await runNamed(manager, CONSUME_PER_USER_QUOTA, [templateId, userId, perUserLimit]);
    return rowCount === 1;
  }
}
