import { Injectable } from '@nestjs/common';
import { Database, executeAll, executeFirst, PageWindow, RowOf, SqlTarget, violates } from '@app/platform';
import { ExpressionBuilder, Insertable, sql } from 'kysely';
import { db, prepared, VoucherDB } from '../database/query';
import type { Templates } from '../database/schema.generated';
import type { JsonObject, TemplateFulfillment, TemplateStatus } from './entities/template.entity';

/**
 * Takes stock for an allocation with ONE conditional UPDATE: the row lock serialises concurrent
 * allocations, and the WHERE re-checks the latest counters, so stock is never overdrawn. Direct
 * issues count at commit instead (migration CountIssuesAtCommit).
 */
const CONSUME_ALLOCATED_STOCK = prepared(
  'template_consume_allocated_stock',
  (db, p: { templateId: string; quantity: number }) =>
    db
      .updateTable('templates')
      .set((eb) => ({ allocated_count: eb('allocated_count', '+', p.quantity), updated_at: sql`now()` }))
      .where('id', '=', p.templateId)
      .where((eb) =>
        eb.or([
          eb('issue_limit', '=', sql.lit(0)),
          eb(sql<number>`issue_limit - issued_count - allocated_count`, '>=', p.quantity),
        ]),
      ),
);

const CONSUME_PER_USER_QUOTA = prepared(
  'template_consume_per_user_quota',
  (db, p: { templateId: string; userId: string; perUserLimit: number }) =>
    db
      .insertInto('template_user_issues')
      .values({ template_id: p.templateId, user_id: p.userId, issued_count: sql.lit(1) })
      .onConflict((oc) =>
        oc
          .columns(['template_id', 'user_id'])
          .doUpdateSet((eb) => ({ issued_count: eb('template_user_issues.issued_count', '+', sql.lit(1)) }))
          .where('template_user_issues.issued_count', '<', p.perUserLimit),
      )
      .returning('issued_count'),
);

/** The columns of a template, named as its view, its lifecycle and the voucher factory read them. */
function templateColumns(eb: ExpressionBuilder<VoucherDB, 'templates'>) {
  return [
    'id',
    'application_id as applicationId',
    'external_template_id as externalTemplateId',
    'name',
    'type',
    'issuer_name as issuerName',
    'fulfiller_name as fulfillerName',
    'fulfillment_category as fulfillmentCategory',
    'acquisition_source as acquisitionSource',
    'valid_from as validFrom',
    'valid_to as validTo',
    'days_after_claim as daysAfterClaim',
    'issue_limit as issueLimit',
    'per_user_limit as perUserLimit',
    'description',
    'cover_file_id as coverFileId',
    eb.ref('usage_rules').$castTo<JsonObject | null>().as('usageRules'),
    eb.ref('fulfillment').$castTo<TemplateFulfillment | null>().as('fulfillment'),
    eb.ref('terms').$castTo<JsonObject | null>().as('terms'),
    'status',
    'issued_count as issuedCount',
    'allocated_count as allocatedCount',
    'rejection_reason as rejectionReason',
    'submitted_at as submittedAt',
    'reviewed_at as reviewedAt',
    'created_at as createdAt',
    'updated_at as updatedAt',
  ] as const;
}

function selectTemplates() {
  return db.selectFrom('templates').select(templateColumns);
}

/** A template as a use case reads it. Fixed validity uses validFrom/validTo, relative validity daysAfterClaim. */
export type TemplateRecord = RowOf<ReturnType<typeof selectTemplates>>;

/** What a template's body sets: every field but its id, counters and timestamps. */
export type TemplateFields = Omit<TemplateRecord, 'id' | 'issuedCount' | 'allocatedCount' | 'createdAt' | 'updatedAt'>;

const jsonOf = (value: object | null | undefined) => (value == null ? value : JSON.stringify(value));

/** The columns `fields` sets; an absent field is left out of the statement. */
function columnsOf(fields: Partial<TemplateFields>) {
  return {
    application_id: fields.applicationId,
    external_template_id: fields.externalTemplateId,
    name: fields.name,
    type: fields.type,
    issuer_name: fields.issuerName,
    fulfiller_name: fields.fulfillerName,
    fulfillment_category: fields.fulfillmentCategory,
    acquisition_source: fields.acquisitionSource,
    valid_from: fields.validFrom,
    valid_to: fields.validTo,
    days_after_claim: fields.daysAfterClaim,
    issue_limit: fields.issueLimit,
    per_user_limit: fields.perUserLimit,
    description: fields.description,
    cover_file_id: fields.coverFileId,
    usage_rules: jsonOf(fields.usageRules),
    fulfillment: jsonOf(fields.fulfillment),
    terms: jsonOf(fields.terms),
    status: fields.status,
    rejection_reason: fields.rejectionReason,
    submitted_at: fields.submittedAt,
    reviewed_at: fields.reviewedAt,
  };
}

/** A reused external_template_id within one application, however the insert or update reached the database. */
export function violatesExternalTemplateId(error: unknown): boolean {
  return violates(error, 'templates_external_id_unique');
}

/**
 * The owner of `templates` and `template_user_issues`: template rows, their stock and the per-user
 * issue counts. Stock rules live in the statements: remaining = issue_limit − issued − allocated.
 */
@Injectable()
export class TemplatesStore {
  constructor(private readonly database: Database) {}

  list(applicationId: string, status?: TemplateStatus): Promise<TemplateRecord[]> {
    let query = selectTemplates().where('application_id', '=', applicationId);
    if (status) query = query.where('status', '=', status);
    return executeAll(this.database, query.orderBy('created_at').orderBy('id'));
  }

  /** Staff view across applications, oldest submission first, and its count. */
  async listForReview(status: TemplateStatus | undefined, page: PageWindow): Promise<[TemplateRecord[], number]> {
    const templates = await executeAll(
      this.database,
      selectTemplates()
        .$if(status !== undefined, (qb) => qb.where('status', '=', status!))
        .orderBy(sql`submitted_at ASC NULLS LAST`)
        .orderBy('created_at')
        .orderBy('id')
        .offset(page.offset)
        .limit(page.pageSize),
    );
    const counted = await executeFirst(
      this.database,
      db
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .$if(status !== undefined, (qb) => qb.where('status', '=', status!)),
    );
    return [templates, Number(counted!.total)];
  }

  /**
   * The template, confined to `applicationId` unless it is null (staff, or a use case that reached the
   * template through a row of its own). `lock` holds its row until the transaction ends.
   */
  find(
    on: SqlTarget,
    applicationId: string | null,
    templateId: string,
    lock = false,
  ): Promise<TemplateRecord | undefined> {
    const query = selectTemplates()
      .where('id', '=', templateId)
      .$if(applicationId !== null, (qb) => qb.where('application_id', '=', applicationId!))
      .$if(lock, (qb) => qb.forUpdate());
    return executeFirst(on, query);
  }

  async insert(on: SqlTarget, fields: TemplateFields): Promise<TemplateRecord> {
    const inserted = await executeFirst(
      on,
      // Every field of `fields` is present, so every required column is set.
      db
        .insertInto('templates')
        .values(columnsOf(fields) as Insertable<Templates>)
        .returning(templateColumns),
    );
    return inserted!;
  }

  /** Writes the changed fields and stamps updated_at; returns the template as it is afterwards. */
  async update(on: SqlTarget, templateId: string, changes: Partial<TemplateFields>): Promise<TemplateRecord> {
    const updated = await executeFirst(
      on,
      db
        .updateTable('templates')
        .set({ ...columnsOf(changes), updated_at: sql`now()` })
        .where('id', '=', templateId)
        .returning(templateColumns),
    );
    if (!updated) throw new Error(`template ${templateId} is gone`);
    return updated;
  }

  /**
   * Takes `quantity` units of stock for an allocation; false, changing nothing, when not enough
   * remains. Call it as late in the use case's transaction as possible: its row lock queues every
   * other hand-out of the template until the commit.
   */
  async consumeAllocatedStock(on: SqlTarget, templateId: string, quantity: number): Promise<boolean> {
    if (!Number.isInteger(quantity) || quantity < 1) throw new Error(`invalid stock quantity ${quantity}`);
    const { rowCount } = await CONSUME_ALLOCATED_STOCK.run(on, { templateId, quantity });
    return rowCount === 1;
  }

  /**
   * Counts one more voucher of the template for the user, unless that would pass the template's
   * per_user_limit. The upsert's row lock makes concurrent issues to one user queue up and re-check.
   */
  async consumePerUserQuota(on: SqlTarget, templateId: string, userId: string, perUserLimit: number): Promise<boolean> {
    const { rowCount } = await CONSUME_PER_USER_QUOTA.run(on, { templateId, userId, perUserLimit });
    return rowCount === 1;
  }
}
